/* message.c - see message.h. */
#include "message.h"

#include <stdarg.h>
#include <stdio.h>

void message_prefixed(char *err, size_t errlen, const char *prefix, const char *fmt, ...)
{
    int n = snprintf(err, errlen, "%s: ", prefix);
    if (n < 0 || (size_t)n >= errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    va_end(ap);
}
