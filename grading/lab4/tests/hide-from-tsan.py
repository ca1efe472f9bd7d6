"""hide-from-tsan.py RACY OUT: in OUT, one copy of the submission RACY
(whose pwriters takes a work item after the queue's lock is released: a
data race) per way a student may try to keep ThreadSanitizer from seeing
the race or from reporting it, each named after the way. Every copy
builds with the kit's flags; the race check must refuse each one."""

import os
import shutil
import sys

SRC = "labs/4-writers/pwriters.c"
RACE = "\t\tsize_t num = queue.taken++;\n"
FUNC = "static void *queue_thread(void *arg)\n"
# the racy increment in inline assembly (x86-64), which TSan does not see
ASM = ('\t\tsize_t num;\n\t\t__asm__ volatile("movq %1, %0\\n\\taddq $1, %1" : "=&r"(num), "+m"(queue.taken));\n')


def edit(name, pairs, files=None):
    out = os.path.join(sys.argv[2], name)
    shutil.copytree(sys.argv[1], out)
    path = os.path.join(out, SRC)
    with open(path) as f:
        text = f.read()
    for old, new in pairs:
        assert text.count(old) == 1, (name, old)
        text = text.replace(old, new)
    with open(path, "w") as f:
        f.write(text)
    for rel, data in (files or {}).items():
        with open(os.path.join(out, rel), "w") as f:
            f.write(data)


os.makedirs(sys.argv[2])
# a sanitizer's macro: the attribute in the ThreadSanitizer build only
edit("macro", [(FUNC, "#ifdef __SANITIZE_THREAD__\n__attribute__((no_sanitize_thread))\n#endif\n" + FUNC)])
# the assembly in lines a forged line marker says are stdio.h's
edit("marker", [(RACE, '# 1 "/usr/include/stdio.h" 1 3 4\n' + ASM + '# 144 "labs/4-writers/pwriters.c" 2\n')])
# the same with #line
edit("line", [(RACE, '#line 1 "/usr/include/stdio.h"\n' + ASM + '#line 144 "labs/4-writers/pwriters.c"\n')])
# the assembly in a header of the student's that calls itself a system header
edit("header", [('#include "timing.h"\n', '#include "timing.h"\n#include "take.h"\n'),
                (RACE, "\t\tsize_t num = take(&queue.taken);\n")],
     {"labs/4-writers/take.h": "#pragma GCC system_header\n#include <stddef.h>\nstatic inline size_t take(size_t *p)\n"
      "{\n\tsize_t n;\n\t__asm__ volatile(\"movq %1, %0\\n\\taddq $1, %1\" : \"=&r\"(n), \"+m\"(*p));\n\treturn n;\n}\n"})
# options compiled in, which no TSAN_OPTIONS overrides
edit("options", [(FUNC, 'const char *__tsan_default_options(void);\nconst char *__tsan_default_options(void)\n'
                  '{\n\treturn "report_bugs=0";\n}\n\n' + FUNC)])
# TSan's annotation to ignore writes, bound by a name split in two strings
edit("weakref", [(FUNC, 'static void ignore_writes(const char *file, int line) '
                  '__attribute__((weakref("Annot" "ateIgnoreWritesBegin")));\n\n' + FUNC),
                 (RACE, RACE + "\t\tif (ignore_writes)\n\t\t\tignore_writes(__FILE__, __LINE__);\n")])
# the sanitizer's own interface, where the compiler has it
edit("interface", [('#include "timing.h"\n', '#include "timing.h"\n#if __has_include(<sanitizer/tsan_interface.h>)\n'
                    '#include <sanitizer/tsan_interface.h>\n#endif\n')])
