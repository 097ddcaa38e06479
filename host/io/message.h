/*
 * message.h - the one error-message shape of the host code: "<what>: <problem>", written into a
 * caller's buffer (npy.c names the file, options.c the command).
 */
#ifndef CGP_MESSAGE_H
#define CGP_MESSAGE_H

#include <stddef.h>

void message_prefixed(char *err, size_t errlen, const char *prefix, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
