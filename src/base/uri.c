/* File paths as URIs (see uri.h). */
#include "base/uri.h"

#include <string.h>

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
