"""Number formatting shared by the summary, the HTML tables and the plots."""

DASH = "\u2014"


def fmt_ns(v):
    """A time in ns with a precision that suits its size: 3.14, 42.5, 1,234."""
    if v is None:
        return DASH
    if abs(v) >= 100:
        return f"{v:,.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def fmt_ratio(v):
    """A ratio: 0.79x, 23.0x, 1,112x."""
    if v is None:
        return DASH
    if abs(v) >= 100:
        return f"{v:,.0f}x"
    if abs(v) >= 10:
        return f"{v:.1f}x"
    return f"{v:.2f}x"


def fmt_int(v):
    return DASH if v is None else f"{v:,}"
