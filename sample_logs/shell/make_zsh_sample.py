"""Write extended.zsh_history the way zsh writes its extended history.

zsh's format: `: <start epoch>:<elapsed seconds>;<command>`, a backslash before every
newline inside a command, and "metafied" bytes: every byte zsh counts as special
(0x00 and 0x83..0xa2, its `imeta` set) is written as 0x83 followed by the byte XOR 0x20.
Run: python sample_logs/shell/make_zsh_sample.py
"""

from pathlib import Path

ENTRIES = [
    (1700000200, 0, "cd ~/src/forsy"),
    (1700000210, 2, "echo café > menu.txt"),
    (1700000215, 0, "mkdir 日本 && cd 日本"),
    (1700000230, 12, 'for f in *.txt; do\n  wc -l "$f"\ndone'),
    (1700000250, 1, "ls \\\n  -la"),
    (1700000260, 0, "git status"),
]


def metafy(data: bytes) -> bytes:
    out = bytearray()
    for b in data:
        if b == 0 or 0x83 <= b <= 0xA2:
            out += bytes([0x83, b ^ 0x20])
        else:
            out.append(b)
    return bytes(out)


def main() -> None:
    lines = []
    for start, elapsed, cmd in ENTRIES:
        body = metafy(cmd.encode("utf-8")).replace(b"\n", b"\\\n")
        lines.append(b": %d:%d;" % (start, elapsed) + body + b"\n")
    Path(__file__).with_name("extended.zsh_history").write_bytes(b"".join(lines))


if __name__ == "__main__":
    main()
