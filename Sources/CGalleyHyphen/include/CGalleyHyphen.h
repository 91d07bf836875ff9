#ifndef CGALLEYHYPHEN_H
#define CGALLEYHYPHEN_H

#include <hyphen.h>

// Loads a libhyphen dictionary (`hyph_*.dic`) into the same automaton `hnj_hyphen_load`
// builds, for libhyphen's own `hnj_hyphen_hyphenate2` and `hnj_hyphen_free`; NULL when the
// file cannot be read.
HyphenDict *galley_hyphen_load(const char *path);

#endif
