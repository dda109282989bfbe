// esmio --settings-help: the settings reference, made from the settings table
// (src/common/settings.hpp) that the library parses settings with, so that the reference cannot
// drift from the code. docs/settings.md is this text (the test settings.reference checks it).
#include "settings_help.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "common/settings.hpp"

namespace {

const char *const kIntro =
    "# esmio settings\n"
    "\n"
    "This reference is generated from the settings table of the library "
    "(`src/common/settings.hpp`)\n"
    "by `esmio --settings-help`: edit the table, then rewrite this file with\n"
    "`cmake --build BUILD --target settings-doc` (the test `settings.reference` fails while they "
    "differ).\n"
    "\n"
    "Settings are one string `key=value,key=value`, given to `esmio_init` (instance settings, and\n"
    "defaults for every file of the instance) or to `esmio_create`/`esmio_open` (file settings).\n"
    "The environment variable `ESMIO_<KEY>` overrides both, for every instance and file of the\n"
    "process; rank 0 reads the environment and broadcasts it. An unknown key is an error\n"
    "(`ESMIO_EBADNAME`), and so is a bad value (`ESMIO_ESETTING`, or `ESMIO_EBADNAME` for a name\n"
    "outside its choices). An `ESMIO_*` environment variable that is not a setting is reported\n"
    "on rank 0's stderr, with the setting whose name is closest, and ignored.\n"
    "`esmio_inq_settings` and `esmio --settings` give an instance's effective settings,\n"
    "`esmio_inq_file_settings` an open file's.\n"
    "\n"
    "Values: integers; sizes in bytes, with an optional K, M, G or T (`64K`, `1G`); booleans\n"
    "`true`/`false` (also `1`/`0`, `yes`/`no`, `on`/`off`); names, which are case-insensitive;\n"
    "text, taken as given.\n";

const char *kind_words(const std::string &kind) {
  if (kind == "int") return "integer";
  if (kind == "size") return "size";
  if (kind == "bool") return "boolean";
  if (kind == "name") return "name";
  return "text";
}

// Lines of at most width characters, broken at spaces: readable in a terminal and in Markdown.
std::string wrap(const std::string &text, std::size_t width) {
  std::string out, line, word;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t space = std::min(text.find(' ', at), text.size());
    word = text.substr(at, space - at);
    at = space + 1;
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line + "\n";
}

void put_setting(std::string *out, const std::string &name, const std::string &kind,
                 const std::string &def, const char *doc) {
  std::string variable = "ESMIO_" + name;
  for (char &c : variable) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  *out += "\n### `" + name + "`\n\n";
  *out += "Variable `" + variable + "`; " + kind_words(kind) + "; default " +
          (def.empty() ? std::string("empty") : "`" + def + "`") + ".\n\n";
  *out += wrap(doc, 96);
}

}  // namespace

extern "C" void settings_help(FILE *out) {
  std::string text = kIntro;
  text += "\n## Instance settings (`esmio_init`)\n";
#define HELP_INSTANCE(name, scope, kind, def, doc) \
  if (std::string(#scope) == "instance") put_setting(&text, #name, #kind, def, doc);
  ESMIO_SETTINGS_TABLE(HELP_INSTANCE)
#undef HELP_INSTANCE
  text += "\n## File settings (`esmio_create`, `esmio_open`; defaults from `esmio_init`)\n";
#define HELP_FILE(name, scope, kind, def, doc) \
  if (std::string(#scope) == "file") put_setting(&text, #name, #kind, def, doc);
  ESMIO_SETTINGS_TABLE(HELP_FILE)
#undef HELP_FILE
  std::fputs(text.c_str(), out);
}
