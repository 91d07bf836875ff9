// A loader for libhyphen's dictionaries that builds the automaton libhyphen's own
// `hnj_hyphen_load` builds, in time linear in the file.
//
// Written here because libhyphen (2.8.8, Debian 12's) finds its states through a hash table
// of a fixed 31,627 buckets, walking each chain with strcmp, and computes each state's
// fallback by looking up every suffix of its string: Debian's German dictionary (1.1 MB,
// 69,000 words and compounds on a first level over TeX's patterns) took 7 s of CPU to load,
// once in every process that set German text. Here the states are a trie, built as the lines
// are read, and the fallbacks (the longest proper suffix of a state's string that is itself a
// state) are computed breadth first over it, as for Aho-Corasick automata.
//
// The reading follows libhyphen's rules line for line, so the automaton is the same (a test
// compares the two state by state for every dictionary the install script installs): the
// first line names the character set; lines are read as fgets reads them into a buffer of
// MAX_CHARS bytes (a longer line is skipped); a line starting with `%` is a comment, every
// other line a pattern or a directive (LEFTHYPHENMIN, RIGHTHYPHENMIN, COMPOUNDLEFTHYPHENMIN,
// COMPOUNDRIGHTHYPHENMIN, NOHYPHEN); `NEXTLEVEL` starts the second level, and a dictionary
// without one gets libhyphen's default first level (hyphens and apostrophes) above it. The
// memory is allocated with malloc, as libhyphen's is, so `hnj_hyphen_free` frees it.
#include "CGalleyHyphen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    HyphenDict *dict;
    int capacity;
} builder;

static char *copy_string(const char *s) {
    size_t length = strlen(s);
    char *copy = malloc(length + 1);
    if (copy) memcpy(copy, s, length + 1);
    return copy;
}

static int new_state(builder *b) {
    HyphenDict *dict = b->dict;
    if (dict->num_states == b->capacity) {
        int capacity = b->capacity * 2;
        HyphenState *states = realloc(dict->states, (size_t)capacity * sizeof(HyphenState));
        if (!states) return -1;
        dict->states = states;
        b->capacity = capacity;
    }
    HyphenState *state = &dict->states[dict->num_states];
    state->match = NULL;
    state->repl = NULL;
    state->replindex = 0;
    state->replcut = 0;
    state->fallback_state = -1;
    state->num_trans = 0;
    state->trans = NULL;
    return dict->num_states++;
}

static int find_transition(const HyphenState *state, char ch) {
    for (int k = 0; k < state->num_trans; k++)
        if (state->trans[k].ch == ch) return state->trans[k].new_state;
    return -1;
}

// The state of `word` (its bytes up to NUL), made with its prefixes when missing.
static int state_of(builder *b, const char *word) {
    int state = 0;
    for (const char *p = word; *p; p++) {
        int next = find_transition(&b->dict->states[state], *p);
        if (next < 0) {
            next = new_state(b);
            if (next < 0) return -1;
            HyphenState *from = &b->dict->states[state];
            // Grown to powers of two, as libhyphen grows them.
            if (from->num_trans == 0 || !(from->num_trans & (from->num_trans - 1))) {
                int capacity = from->num_trans == 0 ? 1 : from->num_trans * 2;
                HyphenTrans *trans = realloc(from->trans, (size_t)capacity * sizeof(HyphenTrans));
                if (!trans) return -1;
                from->trans = trans;
            }
            from->trans[from->num_trans].ch = *p;
            from->trans[from->num_trans].new_state = next;
            from->num_trans++;
        }
        state = next;
    }
    return state;
}

// The C library's atoi, kept for the same reading of numbers libhyphen gets.
static int number_at(const char *s) { return atoi(s); }

// One line of the dictionary, as hnj_hyphen_load_line reads it (`buf` is changed).
static int load_line(builder *b, char *buf) {
    HyphenDict *dict = b->dict;
    if (strncmp(buf, "LEFTHYPHENMIN", 13) == 0) { dict->lhmin = (char)number_at(buf + 13); return 0; }
    if (strncmp(buf, "RIGHTHYPHENMIN", 14) == 0) { dict->rhmin = (char)number_at(buf + 14); return 0; }
    if (strncmp(buf, "COMPOUNDLEFTHYPHENMIN", 21) == 0) { dict->clhmin = (char)number_at(buf + 21); return 0; }
    if (strncmp(buf, "COMPOUNDRIGHTHYPHENMIN", 22) == 0) { dict->crhmin = (char)number_at(buf + 22); return 0; }
    if (strncmp(buf, "NOHYPHEN", 8) == 0) {
        char *list = buf + 8;
        while (*list == ' ' || *list == '\t') list++;
        free(dict->nohyphen);
        dict->nohyphen = copy_string(list);
        if (!dict->nohyphen) return -1;
        // The last character (the line's end) goes; commas between entries become NULs.
        char *end = dict->nohyphen + strlen(dict->nohyphen) - 1;
        *end = 0;
        for (end = end - 1; end > dict->nohyphen; end--) {
            if (*end == ',') { dict->nohyphenl++; *end = 0; }
        }
        return 0;
    }
    char word[MAX_CHARS], pattern[MAX_CHARS + 1];
    int j = 0;
    pattern[0] = '0';
    signed char replindex = 0, replcut = 0;
    char *repl = strchr(buf, '/');
    if (repl) {
        char *index = strchr(repl + 1, ',');
        *repl = '\0';
        if (index) {
            char *index2 = strchr(index + 1, ',');
            *index = '\0';
            if (index2) {
                *index2 = '\0';
                replindex = (signed char)(number_at(index + 1) - 1);
                replcut = (signed char)number_at(index2 + 1);
            }
        } else {
            size_t length = strlen(repl + 1);
            if (length > 0 && (repl[length] == '\r' || repl[length] == '\n')) repl[length] = '\0';
            if (length > 1 && repl[length - 1] == '\r') repl[length - 1] = '\0';
            replcut = (signed char)strlen(buf);
        }
        repl = copy_string(repl + 1);
        if (!repl) return -1;
    }
    for (int i = 0; (unsigned char)buf[i] > (unsigned char)' ' && j < MAX_CHARS - 1; i++) {
        if (buf[i] >= '0' && buf[i] <= '9') {
            pattern[j] = buf[i];
        } else {
            word[j] = buf[i];
            pattern[++j] = '0';
        }
    }
    word[j] = '\0';
    pattern[j + 1] = '\0';
    int skip = 0;
    if (!repl) {
        while (pattern[skip] == '0') skip++;   // leading zeroes say nothing
    } else {
        if (*word == '.') skip++;
        if (dict->utf8) {
            // The replacement's character positions as byte positions.
            int pu = -1, ps = -1;
            size_t pc = (*word == '.') ? 1 : 0;
            for (; pc < strlen(word) + 1; pc++) {
                if ((((unsigned char)word[pc]) >> 6) != 2) pu++;
                if (ps < 0 && replindex == pu) { ps = replindex; replindex = (signed char)pc; }
                if (ps >= 0 && (pu - ps) == replcut) { replcut = (signed char)(pc - replindex); break; }
            }
            if (*word == '.') replindex--;
        }
    }
    int state = state_of(b, word);
    if (state < 0) { free(repl); return -1; }
    HyphenState *s = &dict->states[state];
    free(s->match);
    free(s->repl);
    s->match = copy_string(pattern + skip);
    s->repl = repl;
    s->replindex = replindex;
    s->replcut = replcut ? replcut : (signed char)strlen(word);
    return s->match ? 0 : -1;
}

// Each state's fallback: the state of the longest proper suffix of its string, found breadth
// first (a state's suffixes are shorter, so theirs are known). The root has none (-1).
static int set_fallbacks(HyphenDict *dict) {
    int *queue = malloc((size_t)dict->num_states * sizeof(int));
    if (!queue) return -1;
    int head = 0, tail = 0;
    dict->states[0].fallback_state = -1;
    queue[tail++] = 0;
    while (head < tail) {
        int state = queue[head++];
        const HyphenState *s = &dict->states[state];
        for (int k = 0; k < s->num_trans; k++) {
            int child = s->trans[k].new_state;
            char ch = s->trans[k].ch;
            int fallback = s->fallback_state, found = 0;
            while (fallback >= 0) {
                int next = find_transition(&dict->states[fallback], ch);
                if (next >= 0) { found = next; break; }
                fallback = dict->states[fallback].fallback_state;
            }
            dict->states[child].fallback_state = found;
            queue[tail++] = child;
        }
    }
    free(queue);
    return 0;
}

static HyphenDict *new_dictionary(builder *b) {
    HyphenDict *dict = calloc(1, sizeof(HyphenDict));
    if (!dict) return NULL;
    b->dict = dict;
    b->capacity = 1;
    dict->states = malloc(sizeof(HyphenState));
    if (!dict->states) { free(dict); return NULL; }
    new_state(b);
    return dict;
}

// The next line as fgets reads it into a buffer of `size` bytes: true with the line in
// `buf`; lines that do not fit are skipped, as libhyphen skips them.
static int next_line(FILE *file, char *buf, int size) {
    for (;;) {
        if (fgets(buf, size, file) == NULL) return 0;
        if (!feof(file) && strchr(buf, '\n') == NULL) {
            int c;
            while ((c = fgetc(file)) != '\n' && c != EOF) {}
            continue;
        }
        return 1;
    }
}

HyphenDict *galley_hyphen_load(const char *path) {
    FILE *file = fopen(path, "r");
    if (!file) return NULL;
    builder levels[2];
    HyphenDict *dict[2] = {NULL, NULL};
    char buf[MAX_CHARS];
    int nextlevel = 0, failed = 0;
    for (int k = 0; k < 2 && !failed; k++) {
        dict[k] = new_dictionary(&levels[k]);
        if (!dict[k]) { failed = 1; break; }
        if (k == 0) {
            if (fgets(dict[0]->cset, sizeof(dict[0]->cset), file) != NULL) {
                for (int i = 0; i < MAX_NAME; i++)
                    if (dict[0]->cset[i] == '\r' || dict[0]->cset[i] == '\n') dict[0]->cset[i] = 0;
            }
            dict[0]->utf8 = strcmp(dict[0]->cset, "UTF-8") == 0;
        } else {
            memcpy(dict[1]->cset, dict[0]->cset, sizeof(dict[1]->cset) - 1);
            dict[1]->utf8 = dict[0]->utf8;
        }
        if (k == 0 || nextlevel) {
            while (!failed && next_line(file, buf, sizeof(buf))) {
                if (strncmp(buf, "NEXTLEVEL", 9) == 0) { nextlevel = 1; break; }
                if (buf[0] != '%' && load_line(&levels[k], buf) != 0) failed = 1;
            }
        } else {
            // libhyphen's default first level: no break beside a hyphen or an apostrophe.
            const char *defaults_8bit[] = {"NOHYPHEN ',-\n", "1-1\n", "1'1\n"};
            const char *defaults_utf8[] = {"NOHYPHEN ',\xe2\x80\x93,\xe2\x80\x99,-\n", "1-1\n", "1'1\n",
                                           "1\xe2\x80\x93" "1\n", "1\xe2\x80\x99" "1\n"};
            const char **lines = dict[0]->utf8 ? defaults_utf8 : defaults_8bit;
            int count = dict[0]->utf8 ? 5 : 3;
            for (int i = 0; i < count && !failed; i++) {
                strncpy(buf, lines[i], sizeof(buf) - 1);
                buf[sizeof(buf) - 1] = '\0';
                if (load_line(&levels[1], buf) != 0) failed = 1;
            }
        }
        if (!failed && set_fallbacks(dict[k]) != 0) failed = 1;
    }
    fclose(file);
    if (failed) {
        if (dict[0]) hnj_hyphen_free(dict[0]);
        if (dict[1]) hnj_hyphen_free(dict[1]);
        return NULL;
    }
    if (nextlevel) {
        dict[0]->nextlevel = dict[1];
        return dict[0];
    }
    dict[1]->nextlevel = dict[0];
    dict[1]->lhmin = dict[0]->lhmin;
    dict[1]->rhmin = dict[0]->rhmin;
    dict[1]->clhmin = dict[0]->clhmin ? dict[0]->clhmin : (dict[0]->lhmin ? dict[0]->lhmin : 3);
    dict[1]->crhmin = dict[0]->crhmin ? dict[0]->crhmin : (dict[0]->rhmin ? dict[0]->rhmin : 3);
    return dict[1];
}
