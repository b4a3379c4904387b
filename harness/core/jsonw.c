#include "jsonw.h"
#include <rtb/port.h>

static char buf[1024];
static unsigned len;
static bool need_comma;

static void flush(void)
{
    if (len) {
        rtb_port_write(buf, len);
        len = 0;
    }
}

static void put(char c)
{
    if (len == sizeof buf)
        flush();
    buf[len++] = c;
}

static void puts_raw(const char *s)
{
    while (*s)
        put(*s++);
}

static void put_str(const char *s)
{
    static const char hex[] = "0123456789abcdef";
    put('"');
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            put('\\');
            put((char)c);
        } else if (c < 0x20) {
            puts_raw("\\u00");
            put(hex[c >> 4]);
            put(hex[c & 15]);
        } else {
            put((char)c);
        }
    }
    put('"');
}

static void key(const char *k)
{
    if (need_comma)
        put(',');
    need_comma = true;
    if (k) {
        put_str(k);
        put(':');
    }
}

int jw_fmt_u64(char *out, uint64_t v)
{
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (int i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    return n;
}

int jw_fmt_fix3(char *out, double v)
{
    int n = 0;
    if (!(v == v) || v > 9.2e15 || v < -9.2e15) /* NaN or beyond int64 thousandths */
        v = 0.0;
    if (v < 0) {
        out[n++] = '-';
        v = -v;
    }
    uint64_t milli = (uint64_t)(v * 1000.0 + 0.5);
    n += jw_fmt_u64(out + n, milli / 1000);
    out[n++] = '.';
    uint64_t frac = milli % 1000;
    out[n++] = (char)('0' + frac / 100);
    out[n++] = (char)('0' + frac / 10 % 10);
    out[n++] = (char)('0' + frac % 10);
    return n;
}

static void put_n(const char *s, int n)
{
    for (int i = 0; i < n; i++)
        put(s[i]);
}

void jw_begin(const char *type)
{
    len = 0;
    put('{');
    need_comma = false;
    jw_str("type", type);
}

void jw_str(const char *k, const char *v)
{
    key(k);
    put_str(v ? v : "");
}

void jw_u64(const char *k, uint64_t v)
{
    char tmp[24];
    key(k);
    put_n(tmp, jw_fmt_u64(tmp, v));
}

void jw_i64(const char *k, int64_t v)
{
    char tmp[24];
    key(k);
    if (v < 0) {
        put('-');
        put_n(tmp, jw_fmt_u64(tmp, (uint64_t)0 - (uint64_t)v));
    } else {
        put_n(tmp, jw_fmt_u64(tmp, (uint64_t)v));
    }
}

void jw_fix3(const char *k, double v)
{
    char tmp[32];
    key(k);
    put_n(tmp, jw_fmt_fix3(tmp, v));
}

void jw_bool(const char *k, bool v)
{
    key(k);
    puts_raw(v ? "true" : "false");
}

void jw_obj(const char *k)
{
    key(k);
    put('{');
    need_comma = false;
}

void jw_arr(const char *k)
{
    key(k);
    put('[');
    need_comma = false;
}

void jw_elem_u64x3(uint64_t a, uint64_t b, uint64_t c)
{
    char tmp[24];
    key(0);
    put('[');
    put_n(tmp, jw_fmt_u64(tmp, a));
    put(',');
    put_n(tmp, jw_fmt_u64(tmp, b));
    put(',');
    put_n(tmp, jw_fmt_u64(tmp, c));
    put(']');
}

void jw_close(char c)
{
    put(c);
    need_comma = true;
}

void jw_end(void)
{
    put('}');
    put('\n');
    flush();
}
