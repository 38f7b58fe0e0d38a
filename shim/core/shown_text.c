// SPDX-License-Identifier: MIT
/* Text made safe to print on a terminal (shown_text.h). */
#include "shown_text.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/*
 * The length of the valid UTF-8 character at `in` (of `len` bytes) that a terminal shows as a
 * character, or 0: not shortest form, surrogates, beyond U+10FFFF, the C1 controls (a CSI among
 * them), the line and paragraph separators and the bidirectional controls are 0.
 */
static size_t utf8_shown(const unsigned char *in, size_t len)
{
	size_t n;
	uint32_t c;
	if (in[0] >= 0xc2 && in[0] <= 0xdf)
		n = 2, c = in[0] & 0x1fu;
	else if (in[0] >= 0xe0 && in[0] <= 0xef)
		n = 3, c = in[0] & 0x0fu;
	else if (in[0] >= 0xf0 && in[0] <= 0xf4)
		n = 4, c = in[0] & 0x07u;
	else
		return 0;
	if (n > len)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((in[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (in[i] & 0x3fu);
	}
	static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
	if (c < least[n] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	if (c <= 0x9f || c == 0x2028 || c == 0x2029 || c == 0x200e || c == 0x200f ||
	    (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069))
		return 0;
	return n;
}

size_t tp_shown_text(char *out, size_t size, const char *in, size_t len, unsigned flags)
{
	if (size == 0)
		return 0;
	const void *nul = memchr(in, '\0', len);
	if (nul != NULL)
		len = (size_t)((const char *)nul - in);
	size_t o = 0;
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)in[i];
		size_t n = 0;
		if ((c >= 0x20 && c < 0x7f) || (c == '\n' && (flags & TP_SHOWN_NEWLINES)))
			n = 1;
		else if (c >= 0x80 && (flags & TP_SHOWN_UTF8))
			n = utf8_shown((const unsigned char *)in + i, len - i);
		if (n > 0) {
			if (o + n >= size)
				break;
			memcpy(out + o, in + i, n);
			o += n;
			i += n;
		} else {
			if (o + 4 >= size)
				break;
			snprintf(out + o, 5, "\\x%02x", c);
			o += 4;
			i++;
		}
	}
	out[o] = '\0';
	return o;
}

const char *tp_shown(char *out, size_t size, const char *in, unsigned flags)
{
	tp_shown_text(out, size, in, strlen(in), flags);
	return out;
}
