/* esmio --settings-help: the settings reference (docs/settings.md), from the library's settings
 * table. */
#ifndef ESMIO_TOOLS_SETTINGS_HELP_H
#define ESMIO_TOOLS_SETTINGS_HELP_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes the reference, Markdown, to out. */
void settings_help(FILE *out);

#ifdef __cplusplus
}
#endif
#endif
