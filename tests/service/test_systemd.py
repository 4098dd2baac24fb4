#!/usr/bin/env python3
"""bitsliced under systemd's protocols, driven the way systemd drives them (no systemd needed):
socket activation as sd_listen_fds(3) documents it ($LISTEN_PID must name the daemon,
$LISTEN_FDS counts descriptors from 3, exactly one listening Unix stream socket is used),
readiness and stopping sent to $NOTIFY_SOCKET (Type=notify), journald severities (<N> prefixes
only while stderr is the stream $JOURNAL_STREAM names), and a daemon started by hand with
allow_gids sharing its socket with that group (0750 directory, 0660 socket) as the unit's
SocketGroup/SocketMode do. Every wait is bounded; nothing is timed."""
import os, select, shutil, signal, socket, subprocess, sys, tempfile

BITSLICED = os.environ['BITSLICED']
BITSLICE = os.environ['BITSLICE']
work = tempfile.mkdtemp(prefix='bs-systemd-', dir=os.environ.get('TMPDIR', '/tmp'))
procs = []


def fail(msg):
    print('FAIL: ' + msg, file=sys.stderr)
    for p in procs:
        if p.poll() is None:
            p.kill()
    shutil.rmtree(work, ignore_errors=True)
    sys.exit(1)


def spawn(args, env_extra, pass_fd=None, log='daemon.log', listen_pid='self'):
    """Starts the daemon with pass_fd as descriptor 3 and LISTEN_PID set to its own pid
    ('self'), or to the given value, as systemd does between fork and exec."""
    logf = open(os.path.join(work, log), 'wb')
    env = dict(os.environ)
    for k in ('LISTEN_PID', 'LISTEN_FDS', 'LISTEN_FDNAMES', 'NOTIFY_SOCKET', 'JOURNAL_STREAM'):
        env.pop(k, None)
    env.update(env_extra)

    def pre():
        if pass_fd is not None:
            os.dup2(pass_fd, 3)
            os.set_inheritable(3, True)
        if 'LISTEN_FDS' in env_extra:
            os.environ['LISTEN_PID'] = str(os.getpid()) if listen_pid == 'self' else listen_pid

    # LISTEN_PID must be set in the child: preexec_fn changes os.environ there, and env=None
    # passes it on, so the child's environment is built in pre().
    def pre_all():
        os.environ.clear()
        os.environ.update(env)
        pre()

    p = subprocess.Popen([BITSLICED] + args, stdin=subprocess.DEVNULL, stdout=logf,
                         stderr=logf, preexec_fn=pre_all, env=None, close_fds=True,
                         pass_fds=(pass_fd,) if pass_fd is not None else ())
    procs.append(p)
    return p


def log_text(log='daemon.log'):
    with open(os.path.join(work, log), 'rb') as f:
        return f.read().decode(errors='replace')


def wait_exit(p, what):
    try:
        return p.wait(30)
    except subprocess.TimeoutExpired:
        p.kill()
        fail(what + ': the daemon did not exit')


def listener(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.listen(16)
    return s


def notify_socket(path):
    n = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    n.bind(path)
    return n


def recv_state(n, want, what):
    """Datagrams until one holds want (bounded)."""
    got = []
    while True:
        r, _, _ = select.select([n], [], [], 30)
        if not r:
            fail('%s: no %s on NOTIFY_SOCKET (got %r)\n%s' % (what, want, got, log_text()))
        m = n.recv(4096).decode()
        got.append(m)
        if want in m.split('\n'):
            return got


def status(sock, pre=()):
    return subprocess.run(list(pre) + [BITSLICE, 'status', '--socket', sock],
                          capture_output=True, text=True, timeout=60)


# 1. Activated: fd 3 is served, READY=1 comes once it is, STOPPING=1 on SIGTERM.
act = os.path.join(work, 'act')
os.mkdir(act)
lsock = listener(os.path.join(act, 's.sock'))
note = notify_socket(os.path.join(work, 'notify'))
p = spawn(['--set', 'backend=cpu', '--set', 'threads=1'],
          {'LISTEN_FDS': '1', 'LISTEN_FDNAMES': 'bitsliced.socket',
           'NOTIFY_SOCKET': os.path.join(work, 'notify')}, pass_fd=lsock.fileno())
recv_state(note, 'READY=1', 'activated')
if 'socket_activated=1 fd=3' not in log_text():
    fail('activated: no socket_activated=1 fd=3 in the log:\n' + log_text())
r = status(os.path.join(act, 's.sock'))
if r.returncode != 0 or 'backend=cpu' not in r.stdout:
    fail('status through the activated socket: %d %s' % (r.returncode, r.stderr))
p.send_signal(signal.SIGTERM)
recv_state(note, 'STOPPING=1', 'activated')
if wait_exit(p, 'activated') != 0:
    fail('activated: exit %s\n%s' % (p.returncode, log_text()))
print('ok: socket activation on fd 3, READY=1 once served, STOPPING=1 on SIGTERM')

# 2. Abstract NOTIFY_SOCKET ('@'): the same readiness.
abstract = '@bs-systemd-test-%d' % os.getpid()
na = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
na.bind('\0' + abstract[1:])
own = os.path.join(work, 'own', 's.sock')
p = spawn(['--socket', own, '--set', 'backend=cpu', '--set', 'threads=1'],
          {'NOTIFY_SOCKET': abstract})
recv_state(na, 'READY=1', 'abstract NOTIFY_SOCKET')
p.send_signal(signal.SIGTERM)
wait_exit(p, 'abstract')
print('ok: READY=1 to an abstract NOTIFY_SOCKET')

# 3. LISTEN_PID of another process: the descriptors are not ours; the daemon binds --socket.
p = spawn(['--socket', own, '--set', 'backend=cpu', '--set', 'threads=1'],
          {'LISTEN_FDS': '1', 'NOTIFY_SOCKET': os.path.join(work, 'notify')},
          pass_fd=lsock.fileno(), listen_pid='1')
recv_state(note, 'READY=1', 'LISTEN_PID of another process')
if 'socket=' + own not in log_text() or 'socket_activated=1' in log_text():
    fail('LISTEN_PID of another process was taken as ours:\n' + log_text())
p.send_signal(signal.SIGTERM)
wait_exit(p, 'other pid')
print('ok: LISTEN_PID naming another process -> not activated, binds its own socket')


def refuses(env, fd, want, what):
    p = spawn(['--socket', own], env, pass_fd=fd)
    rc = wait_exit(p, what)
    t = log_text()
    if rc != 1 or want not in t or 'event=ready' in t:
        fail('%s: exit %d, log:\n%s' % (what, rc, t))
    print('ok: %s -> refuses: %s' % (what, want))


refuses({'LISTEN_FDS': '2'}, lsock.fileno(), 'socket activation passed 2 sockets', 'LISTEN_FDS=2')
refuses({'LISTEN_FDS': '1x'}, lsock.fileno(), "LISTEN_FDS: not a count: '1x'", 'LISTEN_FDS=1x')
with open(os.path.join(work, 'plain'), 'w') as f:
    refuses({'LISTEN_FDS': '1'}, f.fileno(),
            'descriptor 3 is not a listening Unix stream socket', 'fd 3 a plain file')
udp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
udp.bind(('127.0.0.1', 0))
udp.listen(1)
refuses({'LISTEN_FDS': '1'}, udp.fileno(),
        'descriptor 3 is not a listening Unix stream socket', 'fd 3 a TCP listener')
udp.close()
lsock.close()

# 4. journald: <N> severities while stderr is the JOURNAL_STREAM, plain lines otherwise.
logpath = os.path.join(work, 'journal.log')
open(logpath, 'wb').close()
st = os.stat(logpath)
shared = os.path.join(work, 'shared')
os.mkdir(shared)
open(os.path.join(shared, 'other'), 'w').close()
p = spawn(['--socket', os.path.join(shared, 's.sock')],
          {'JOURNAL_STREAM': '%d:%d' % (st.st_dev, st.st_ino)}, log='journal.log')
wait_exit(p, 'journal')
t = log_text('journal.log')
if not t.startswith('<') or '<3>bitsliced level=error event=start' not in t:
    fail('JOURNAL_STREAM = stderr: no <3> error line:\n' + t)
for line in t.splitlines():
    lvl = line.split('level=')[1].split()[0]
    want = {'error': '<3>', 'warn': '<4>', 'info': '<6>', 'debug': '<7>'}[lvl]
    if not line.startswith(want + 'bitsliced '):
        fail('journal line without its severity %s: %r' % (want, line))
# JOURNAL_STREAM names journal.log (which still exists) while stderr is plain.log: another
# stream for certain. (Its inode + 1 was not: tmpfs numbers new files in turn, and plain.log,
# made next, could get that very number.)
p = spawn(['--socket', os.path.join(shared, 's.sock')],
          {'JOURNAL_STREAM': '%d:%d' % (st.st_dev, st.st_ino)}, log='plain.log')
wait_exit(p, 'journal mismatch')
t = log_text('plain.log')
# plain lines (a sanitized build may warn about mlock first), the error among them
if t.startswith('<') or '\nbitsliced level=error event=start' not in '\n' + t:
    fail('JOURNAL_STREAM naming another stream: %r' % t)
print('ok: journald severities (<3> error ...) only while stderr is the JOURNAL_STREAM')

# 5. Started by hand with allow_gids: the directory 0750 and the socket 0660 of that group, so
#    its members reach it, as with the unit's SocketGroup/SocketMode; without: 0700 and 0600.
#    Needs root (a group to share with, and setpriv for a member and a non-member).
if os.geteuid() != 0 or shutil.which('setpriv') is None:
    print('skip: the group-shared socket (needs root and setpriv)')
else:
    os.chmod(work, 0o755)
    gid = 4242
    run = os.path.join(work, 'run')
    sock = os.path.join(run, 'bitsliced.sock')
    p = spawn(['--socket', sock, '--set', 'allow_gids=%d' % gid, '--set', 'allow_uids=0',
               '--set', 'backend=cpu', '--set', 'threads=1'],
              {'NOTIFY_SOCKET': os.path.join(work, 'notify')})
    recv_state(note, 'READY=1', 'group-shared')
    ds, ss = os.stat(run), os.stat(sock)
    if (ds.st_mode & 0o7777, ds.st_gid, ss.st_mode & 0o777, ss.st_gid) != (0o750, gid, 0o660, gid):
        fail('allow_gids=%d: directory %o gid %d, socket %o gid %d' %
             (gid, ds.st_mode & 0o7777, ds.st_gid, ss.st_mode & 0o777, ss.st_gid))
    member = ['setpriv', '--reuid=65534', '--regid=65534', '--groups=%d' % gid]
    r = status(sock, member)
    if r.returncode != 0 or 'backend=cpu' not in r.stdout:
        fail('a member of group %d: %d %s' % (gid, r.returncode, r.stderr))
    r = status(sock, ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'])
    if r.returncode != 1 or 'permission denied; are you in the daemon' not in r.stderr:
        fail('a non-member: %d %r' % (r.returncode, r.stderr))
    p.send_signal(signal.SIGTERM)
    wait_exit(p, 'group-shared')
    # A directory already as tmpfiles.d makes it (0750, the group): left as it is, no warning.
    os.rmdir(run)
    os.mkdir(run, 0o750)
    os.chown(run, 0, gid)
    os.chmod(run, 0o750)
    p = spawn(['--socket', sock, '--set', 'allow_gids=%d' % gid, '--set', 'backend=cpu'],
              {'NOTIFY_SOCKET': os.path.join(work, 'notify')})
    recv_state(note, 'READY=1', 'tmpfiles directory')
    if 'event=socket_dir' in log_text() or os.stat(run).st_mode & 0o7777 != 0o750:
        fail('the 0750 group directory was changed:\n' + log_text())
    p.send_signal(signal.SIGTERM)
    wait_exit(p, 'tmpfiles directory')
    # Without allow_gids: the user's own daemon, 0700 and 0600 as before.
    p = spawn(['--socket', sock, '--set', 'backend=cpu'],
              {'NOTIFY_SOCKET': os.path.join(work, 'notify')})
    recv_state(note, 'READY=1', 'private')
    ds, ss = os.stat(run), os.stat(sock)
    if (ds.st_mode & 0o7777, ss.st_mode & 0o777) != (0o700, 0o600):
        fail('no allow_gids: directory %o, socket %o' % (ds.st_mode & 0o7777, ss.st_mode & 0o777))
    p.send_signal(signal.SIGTERM)
    wait_exit(p, 'private')
    print('ok: allow_gids -> 0750 directory and 0660 socket of the group (a member reaches it, '
          'a non-member is told why); a tmpfiles 0750 directory kept; none -> 0700/0600')

shutil.rmtree(work, ignore_errors=True)
print('ok: systemd protocols')
