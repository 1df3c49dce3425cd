"""Writes a file's bytes as C source (input_csv, input_size) for the bare-metal replay's stdin."""
import sys

data = open(sys.argv[1], "rb").read()
with open(sys.argv[2], "w") as out:
    out.write("const char input_csv[] =\n")
    for at in range(0, len(data), 64):
        chunk = data[at:at + 64]
        out.write('    "' + "".join("\\%03o" % b if b < 32 or b > 126 or b in (34, 92) else chr(b) for b in chunk) + '"\n')
    out.write(";\nconst unsigned long input_size = %d;\n" % len(data))
