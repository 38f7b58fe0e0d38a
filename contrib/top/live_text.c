// SPDX-License-Identifier: MIT
/* Text read from a live statistics file, made safe for a terminal (live_view.h). */
#include "live_private.h"
#include "live_view.h"

#include <string.h>

#include "shown_text.h"

/* --- text --- */

static bool text_utf8;

void live_text_utf8(bool utf8)
{
	text_utf8 = utf8;
}

size_t live_escape(char *out, size_t size, const char *in, size_t len, bool keep_newlines)
{
	return tp_shown_text(out, size, in, len,
			     (keep_newlines ? TP_SHOWN_NEWLINES : 0) |
				     (text_utf8 ? TP_SHOWN_UTF8 : 0));
}

const char *shown_path(char out[SHOWN_PATH_SIZE], const char *path)
{
	live_escape(out, SHOWN_PATH_SIZE, path, strlen(path), false);
	return out;
}
