/* record.c — see record.h. */
#include "record.h"

#include <string.h>
#include <time.h>

#include "andgate.h"
#include "json.h"

void ag_document_begin(FILE *f, const char *mode, const char *command)
{
    char date[64];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(f, "{\"tool\":\"andgate\",\"version\":\"%s\",\"mode\":\"%s\",\"command\":", ANDGATE_VERSION_STRING, mode);
    json_str(f, command);
    fprintf(f, ",\"date\":\"%s\"", date);
}

void ag_record_begin(FILE *f, const struct ag_record *r)
{
    fprintf(f, "{\"impl\":");
    json_str(f, r->impl);
    fprintf(f, ",\"kind\":\"%s\",\"threads\":%u,\"wait\":", r->kind, r->threads);
    json_str(f, r->wait);
    fprintf(f, ",\"pinning\":\"%s\",\"method\":\"%s\",\"median_ns\":%.1f,\"min_ns\":%.1f,\"p99_ns\":%.1f", r->pinning,
            r->method, r->median_ns, r->min_ns, r->p99_ns);
    if (r->mean_ns >= 0)
        fprintf(f, ",\"mean_ns\":%.1f", r->mean_ns);
    fprintf(f, ",\"cpu_ns_per_episode\":%.1f,\"episodes\":%u", r->cpu_ns_per_episode < 0 ? 0 : r->cpu_ns_per_episode,
            r->episodes);
    if (!strcmp(r->method, "jitter") && r->late)
        fprintf(f, ",\"jitter_delay_ns\":%.0f,\"late\":\"%s\"", r->jitter_delay_ns, r->late);
    if (r->ranks)
        fprintf(f, ",\"ranks\":%u,\"threads_per_rank\":%u", r->ranks, r->threads_per_rank);
    if (r->mpi_node)
        fprintf(f, ",\"mpi_node\":\"%s\"", r->mpi_node);
    if (r->settings) {
        fprintf(f, ",\"settings\":");
        json_str(f, r->settings);
    }
    if (r->describe) {
        fprintf(f, ",\"describe\":");
        json_str(f, r->describe);
    }
}

void ag_record_end(FILE *f, const struct ag_record *r)
{
    fprintf(f, ",\"status\":\"%s\"", r->error ? "failed" : "ok");
    if (r->error) {
        fprintf(f, ",\"error\":");
        json_str(f, r->error);
    }
    fputc('}', f);
}
