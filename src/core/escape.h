/* escape.h: text made safe for the formats pldsim writes (escape.c): XML
 * for the SVG timeline, JSON for the Perfetto trace and the summary.  The
 * run's state is none of its business, so it needs no other header. */
#ifndef PLD_ESCAPE_H
#define PLD_ESCAPE_H

/* `s` escaped for XML text and attributes, or for a JSON string, in a new
 * string the caller frees (escape.c); NULL when out of memory. */
char *pld__escape_xml(const char *s);
char *pld__escape_json(const char *s);
/* A jansson string of `s`, malformed UTF-8 replaced by U+FFFD; NULL when out
 * of memory. */
struct json_t *pld__json_string(const char *s);

#endif /* PLD_ESCAPE_H */
