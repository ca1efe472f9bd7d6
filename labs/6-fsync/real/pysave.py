#!/usr/bin/env python3
"""pysave - Lab 6: a document saved from Python the two ways programs
do it, and the checker of what a crash left of it.

  pysave.py --naive|--atomic -g GEN FILE     save generation GEN in FILE
  pysave.py --verify -g GEN FILE during|after

The document is JSON: {"generation": GEN, "records": [...]}, 400 records
(about 20 KiB, five blocks). --naive writes it as most scripts do:
open(FILE, "w"), json.dump, close (the old one truncated first).
--atomic: into FILE.tmp, flush, fsync, os.replace over FILE, fsync of
the directory. --verify (crashstates' checker): FILE parses and is one
generation whole, GEN - 1 or GEN while the save ran ("during"), GEN once
it had ended ("after"); exit 1 with one line saying why, else 0.
Exit status: 0, 1 on an I/O error (one line), 2 for a bad command line.
"""

import argparse
import json
import os
import sys

RECORDS = 400


def document(gen):
    return {"generation": gen, "records": [{"id": i, "value": f"generation {gen} record {i}"}
                                           for i in range(RECORDS)]}


def save_naive(path, gen):
    with open(path, "w") as f:
        json.dump(document(gen), f)


def save_atomic(path, gen):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(document(gen), f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def verify(path, gen, when):
    """(fine?, why)."""
    try:
        with open(path, "rb") as f:
            doc = json.loads(f.read())
    except OSError as e:
        return False, f"{path}: {e.strerror}"
    except ValueError as e:
        return False, f"{path}: not JSON ({str(e)[:60]})"
    wanted = (gen,) if when == "after" else (gen - 1, gen)
    got = doc.get("generation") if isinstance(doc, dict) else None
    if got not in wanted or doc != document(got):
        return False, f"{path}: generation {got}, not {' or '.join(map(str, wanted))} whole"
    return True, ""


def main(argv):
    p = argparse.ArgumentParser(prog="pysave", description=__doc__.split("\n\n")[0])
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--naive", action="store_true")
    how.add_argument("--atomic", action="store_true")
    how.add_argument("--verify", action="store_true")
    p.add_argument("-g", type=int, required=True, metavar="GEN")
    p.add_argument("file")
    p.add_argument("when", nargs="?", choices=("during", "after"))
    a = p.parse_args(argv)
    if a.g < 1 or (a.verify and a.g < 2):
        p.error("-g: a generation of at least 1 (2 with --verify: the one before is checked too)")
    if a.verify != (a.when is not None):
        p.error("during or after goes with --verify, and only with it")
    if a.verify:
        fine, why = verify(a.file, a.g, a.when)
        if not fine:
            print(why)
        return 0 if fine else 1
    try:
        (save_naive if a.naive else save_atomic)(a.file, a.g)
    except OSError as e:
        print(f"pysave: {e.filename}: {e.strerror}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
