/* File paths as URIs (RFC 8089 file://, RFC 3986 percent-encoding): the
 * lossless, plain-ASCII form of a name whose bytes a line of text or a
 * JSON string cannot hold as they are (a newline, invalid UTF-8). */
#ifndef CRATE_BASE_URI_H
#define CRATE_BASE_URI_H

#include "base/str.h"

/* Append path to b percent-encoded, every byte but unreserved and
 * sub-delimiter characters, '/', ':' and '@'; an absolute path gets
 * "file://" before it. */
void uri_add_path(struct strbuf *b, const char *path);

/* Decode %XX escapes in s, in place (%00 is left as written). */
void uri_percent_decode(char *s);

/* The local path a file:// URI names (file:///x or file://localhost/x),
 * decoded; owned. NULL for another scheme or another host's file. */
char *uri_file_path(const char *uri);

#endif
