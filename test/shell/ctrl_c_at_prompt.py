"""Ctrl-C at the interactive prompt clears the line and keeps the shell (and its in-memory
tables), as in psql: the shell runs in a pseudo-terminal, gets half a statement, then Ctrl-C, then
a statement. Prints what the shell wrote after the Ctrl-C and its exit status."""
import os, pty, sys, time, select
hyrax = sys.argv[1]
pid, fd = pty.fork()
if pid == 0:
    os.environ['HOME'] = sys.argv[2]  # the history file goes there
    os.execv(hyrax, [hyrax])
def read_for(t):
    out = b''
    end = time.time() + t
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                d = os.read(fd, 4096)
            except OSError:
                break
            if not d: break
            out += d
    return out
read_for(1.0)
os.write(fd, b'CREATE TABLE kept (a INTEGER);\n')
read_for(0.5)
os.write(fd, b'SELECT 1 +')
read_for(0.3)
os.write(fd, b'\x03')
read_for(0.5)
os.write(fd, b'SELECT 40 + 2 AS answer FROM (SELECT count(*) FROM kept) k;\n')
out = read_for(1.5)
os.write(fd, b'\\q\n')
read_for(0.5)
_, status = os.waitpid(pid, 0)
print(out.decode(errors='replace'))
print('status', status)
