"""word_count: the arguments arrive as JSON on stdin and, through the argv map, as flags."""
import argparse
import json
import os
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--path", required=True)
parser.add_argument("--lines-only", action="store_true")
flags = parser.parse_args()
arguments = json.load(sys.stdin)  # the same values, as the model sent them

workspace = os.environ["CRYSTAL_WORKSPACE"]
target = os.path.realpath(os.path.join(workspace, flags.path))
if not target.startswith(workspace + os.sep):
    print(f"{flags.path} is outside the workspace", file=sys.stderr)
    sys.exit(2)
with open(target, encoding="utf-8") as handle:
    text = handle.read()

# Something to remember between calls: CRYSTAL_PROJECT_DATA is this set's folder in this workspace.
history = os.path.join(os.environ["CRYSTAL_PROJECT_DATA"], "counted.txt")
with open(history, "a", encoding="utf-8") as handle:
    handle.write(flags.path + "\n")

lines = text.count("\n")
if flags.lines_only:
    print(f"{flags.path}: {lines} lines")
else:
    print(f"{flags.path}: {lines} lines, {len(text.split())} words, {len(text)} characters")
