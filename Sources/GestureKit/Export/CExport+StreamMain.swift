/// `stream_main.c`: the host program that replays CSV frames through the exported recogniser and
/// prints what `gesture stream P --input F --json` prints, so the two can be compared line by line.
extension CGenerator {
    func makeStreamMain() -> String {
        let p = prefix, P = prefix.uppercased()
        let rate = pipeline.sampleRate.map(CBuilder.literal) ?? "0.0"
        return """
            /* Reads frames as CSV (or whitespace-separated) lines on stdin and prints each detection as one
               JSON line, as `gesture stream P --json` does: frame, time, label, confidence, start.
               Lines are read as gesture stream reads them: blank and # lines skipped; a first line with no
               number is a header that picks the channels by name; a line with another field count, a
               non-number or a non-finite value is skipped and counted. Build:
                 cc -std=c99 -O2 \(p).c stream_main.c -lm -o stream */
            #include "\(p).h"
            #include <math.h>
            #include <stdio.h>
            #include <stdlib.h>
            #include <string.h>

            #define MAX_LINE 65536
            #define MAX_FIELDS 4096

            static int is_space(char c) { return c == ' ' || c == '\\t' || c == '\\r' || c == '\\n'; }

            /* Splits `line` in place at commas (when it has one) or at blanks; returns the field count. */
            static int split(char *line, char **field) {
                int n = 0;
                char *p = line;
                if (strchr(line, ',')) {
                    for (;;) {
                        char *end = strchr(p, ','), *lo = p, *hi;
                        if (end) *end = '\\0';
                        hi = lo + strlen(lo);
                        while (lo < hi && is_space(*lo)) lo++;
                        while (hi > lo && is_space(hi[-1])) hi--;
                        *hi = '\\0';
                        if (n < MAX_FIELDS) field[n++] = lo;
                        if (!end) break;
                        p = end + 1;
                    }
                    return n;
                }
                while (*p) {
                    while (*p && is_space(*p)) p++;
                    if (!*p) break;
                    if (n < MAX_FIELDS) field[n++] = p;
                    while (*p && !is_space(*p)) p++;
                    if (*p) *p++ = '\\0';
                }
                return n;
            }

            /* The field as a float; 0 when it is not entirely a number. */
            static int number(const char *s, float *v) {
                char *end;
                if (!*s) return 0;
                *v = strtof(s, &end);
                while (*end == ' ' || *end == '\\t' || *end == '\\r') end++;
                return *end == '\\0';
            }

            /* Writes v as Swift prints a Float: the shortest digits that read back as v, positional from
               1e-4 up to 2^24 (with ".0" when whole), else d.ddde-XX. */
            static void put_float(float v) {
                char buf[64], digits[16];
                int p, e, nd = 0, i;
                const char *q;
                if (isnan(v)) { fputs("nan", stdout); return; }
                if (isinf(v)) { fputs(v < 0 ? "-inf" : "inf", stdout); return; }
                if (v == 0.0f) { fputs(signbit(v) ? "-0.0" : "0.0", stdout); return; }
                for (p = 1; p <= 9; p++) {
                    sprintf(buf, "%.*e", p - 1, (double)v);
                    if (strtof(buf, NULL) == v) break;
                }
                q = buf;
                if (*q == '-') { putchar('-'); q++; }
                for (; *q && *q != 'e'; q++) if (*q != '.') digits[nd++] = *q;
                while (nd > 1 && digits[nd - 1] == '0') nd--;
                e = atoi(q + 1);
                if (e < -4 || fabsf(v) > 16777216.0f) {
                    putchar(digits[0]);
                    if (nd > 1) { putchar('.'); for (i = 1; i < nd; i++) putchar(digits[i]); }
                    printf("e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
                    return;
                }
                if (e < 0) {
                    fputs("0.", stdout);
                    for (i = -1; i > e; i--) putchar('0');
                    for (i = 0; i < nd; i++) putchar(digits[i]);
                    return;
                }
                for (i = 0; i <= e; i++) putchar(i < nd ? digits[i] : '0');
                putchar('.');
                if (nd <= e + 1) putchar('0');
                for (i = e + 1; i < nd; i++) putchar(digits[i]);
            }

            static void put_string(const char *s) {
                putchar('"');
                for (; *s; s++) {
                    unsigned char c = (unsigned char)*s;
                    if (c == '"') fputs("\\\\\\"", stdout);
                    else if (c == '\\\\') fputs("\\\\\\\\", stdout);
                    else if (c == '\\n') fputs("\\\\n", stdout);
                    else if (c < 0x20) printf("\\\\u%04x", c);
                    else putchar(c);
                }
                putchar('"');
            }

            /* One detection as a JSON line; the time is null when the sample rate is unknown. */
            static void put_detection(long long frame, double rate, \(p)_decision d) {
                printf("{\\"frame\\":%lld,\\"time\\":", frame);
                if (rate > 0.0) printf("%.6g", (double)frame / rate); else fputs("null", stdout);
                fputs(",\\"label\\":", stdout);
                put_string(\(p)_class_name(d.label));
                fputs(",\\"confidence\\":", stdout);
                put_float(d.confidence);
                printf(",\\"start\\":%lld}\\n", (long long)d.start);
            }

            static void unquote(char *s) {
                size_t n = strlen(s);
                if (n >= 2 && s[0] == s[n - 1] && (s[0] == '"' || s[0] == '\\'')) {
                    memmove(s, s + 1, n - 2);
                    s[n - 2] = '\\0';
                }
            }

            int main(void) {
                static char line[MAX_LINE], copy[MAX_LINE], header[MAX_LINE];
                static char *field[MAX_FIELDS];
                \(p)_state state;
                float frame[\(P)_CHANNELS];
                int column[\(P)_CHANNELS];
                int fields = -1, have_header = 0, j;
                long long frames = 0, detections = 0, malformed = 0;
                const double rate = \(rate);
                for (j = 0; j < \(P)_CHANNELS; j++) column[j] = j;
                \(p)_init(&state);
                while (fgets(line, sizeof line, stdin)) {
                    char *t = line;
                    int n, ok = 1;
                    size_t len;
                    \(p)_decision d;
                    if ((unsigned char)t[0] == 0xEF && (unsigned char)t[1] == 0xBB && (unsigned char)t[2] == 0xBF) t += 3;
                    len = strlen(t);
                    while (len > 0 && is_space(t[len - 1])) t[--len] = '\\0';
                    while (*t && is_space(*t)) t++;
                    strcpy(copy, t);
                    n = split(t, field);
                    if (n == 0 || field[0][0] == '#') continue;
                    if (fields < 0) {
                        int any = 0, k;
                        float v;
                        for (k = 0; k < n; k++) if (number(field[k], &v)) { any = 1; break; }
                        if (!any) {
                            for (k = 0; k < n; k++) unquote(field[k]);
                            for (j = 0; j < \(P)_CHANNELS; j++) {
                                column[j] = -1;
                                for (k = 0; k < n; k++) {
                                    if (column[j] < 0 && strcmp(field[k], \(p)_channel_name(j)) == 0) column[j] = k;
                                }
                                if (column[j] < 0) {
                                    fprintf(stderr, "error: input header has no column \\"%s\\"\\n", \(p)_channel_name(j));
                                    return 1;
                                }
                            }
                            fields = n;
                            have_header = 1;
                            strcpy(header, copy);
                            continue;
                        }
                        if (n < \(P)_CHANNELS) { malformed++; continue; }
                        fields = n;
                    } else if (have_header && strcmp(copy, header) == 0) {
                        continue;
                    }
                    if (n != fields) { malformed++; continue; }
                    for (j = 0; j < \(P)_CHANNELS; j++) {
                        if (!number(field[column[j]], &frame[j]) || !isfinite(frame[j])) { ok = 0; break; }
                    }
                    if (!ok) { malformed++; continue; }
                    d = \(p)_push(&state, frame);
                    if (d.label >= 0) {
                        put_detection(frames, rate, d);
                        detections++;
                    }
                    frames++;
                }\(spots ? """

                    if (frames > 0) {
                        \(p)_decision d;
                        while ((d = \(p)_flush(&state)).label >= 0) {
                            put_detection(frames - 1, rate, d);
                            detections++;
                        }
                    }
                """ : "")
                fprintf(stderr, "%lld frames, %lld detections, %lld malformed\\n", frames, detections, malformed);
                return 0;
            }

            """
    }
}
