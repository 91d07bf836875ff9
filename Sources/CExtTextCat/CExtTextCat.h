#include <textcat.h>
