"""Number formatting shared by the summary, the HTML tables and the plots."""

DASH = "\u2014"


def _by_magnitude(v, suffix=""):
    """0 decimals from 100 up (with thousands separators), 1 from 10, else 2."""
    if v is None:
        return DASH
    if abs(v) >= 100:
        return f"{v:,.0f}{suffix}"
    if abs(v) >= 10:
        return f"{v:.1f}{suffix}"
    return f"{v:.2f}{suffix}"


def fmt_ns(v):
    """A time in ns with a precision that suits its size: 3.14, 42.5, 1,234."""
    return _by_magnitude(v)


def fmt_ratio(v):
    """A ratio: 0.79x, 23.0x, 1,112x."""
    return _by_magnitude(v, "x")


def fmt_int(v):
    return DASH if v is None else f"{v:,}"
