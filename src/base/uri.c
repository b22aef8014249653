/* File paths as URIs (see uri.h). */
#include "base/uri.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/err.h"
#include "base/str.h"

void uri_add_path(struct strbuf *b, const char *path)
{
	static const char keep[] = "/-._~!$'()*+,;=:@";
	if (path[0] == '/')
		strbuf_adds(b, "file://");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		bool alnum = (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
			     (*p >= 'A' && *p <= 'Z');
		if (alnum || strchr(keep, *p))
			strbuf_addc(b, (char)*p);
		else
			strbuf_addf(b, "%%%02X", *p);
	}
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
					: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

void uri_percent_decode(char *s)
{
	char *w = s;
	for (char *r = s; *r; r++) {
		int hi, lo;
		/* %00 stays as written: a path cannot hold a NUL */
		if (r[0] == '%' && (hi = hexval((unsigned char)r[1])) >= 0 &&
		    (lo = hexval((unsigned char)r[2])) >= 0 && (hi || lo)) {
			*w++ = (char)(hi * 16 + lo);
			r += 2;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

char *uri_file_path(const char *uri)
{
	if (strncasecmp(uri, "file://", 7) != 0)
		return NULL;
	const char *p = uri + 7;
	if (strncasecmp(p, "localhost/", 10) == 0)
		p += 9;
	if (*p != '/')
		return NULL; /* another host's */
	char *path = xstrdup(p);
	uri_percent_decode(path);
	return path;
}
