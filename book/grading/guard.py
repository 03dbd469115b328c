"""The first cell the judge runs in the learner's kernel: an audit hook that refuses and reports,
and through which the judge makes its calls.

It runs before any of the learner's code (standard library only). Python audit hooks cannot be
removed, and everything the hook uses is captured when it is installed (``os`` functions, the
JSON coder, the builtins), so later patches by the learner's code do not reach it; its state is
rebound, never mutated. For the rest of the kernel's life:

- reading a file outside the ``readable`` folders (an allow-list: the Python environment, the
  restricted package, the scratch folder, the notebook's copy) or writing one outside the
  ``writable`` ones, starting a process, opening a network connection, loading code with
  ``ctypes``, tracing (``sys.settrace``) or walking every object (``gc``) raises PermissionError;
- every refusal goes to the judge at once, as a line on the ``results`` pipe that the judge reads:
  what the learner's code does afterwards cannot take it back. Every line is signed with a key
  the guard sends first, before the learner's code runs, and keeps out of its reach: a line the
  learner's code writes itself is told apart;
- ``sys.audit("book.grade.call", call_id, globals())`` runs one of the judge's calls: its
  inputs come from the ``inbox`` pipe only then (the notebook never holds another call's), the
  harness (``book.grading.harness``) runs it, and the outcome goes to the judge on the pipe;
- while a call runs, the frames of the grader's code (the harness, the task's setup, the call's
  own namespace) are out of reach: ``sys._getframe`` raises ValueError and a traceback's or a
  generator's frame PermissionError whenever they would lead to one, and signal handlers are
  paused, since a handler is handed the frame it interrupts.

This is the line that still holds, less firmly, without bubblewrap (``--sandbox none``); with it,
bubblewrap enforces the file system, the network and the processes from outside the process.
"""

import os
import sys

CALL_EVENT = "book.grade.call"  # the judge's call cells raise it: (call id, the notebook's globals)
USED_EVENT = "book.grade.used"  # the stubs raise it when the notebook uses blocked code
PROCESS_EVENTS = frozenset(
    {
        "subprocess.Popen",
        "os.system",
        "os.fork",
        "os.forkpty",
        "os.posix_spawn",
        "os.spawn",
        "os.exec",
        "pty.spawn",
        "os.startfile",
    }
)
NETWORK_EVENTS = frozenset(
    {"socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg", "socket.getaddrinfo"}
)
ALWAYS_REFUSED = {  # event -> what the report says the notebook tried
    "gc.get_objects": "walking every object (gc.get_objects)",
    "gc.get_referrers": "walking every object (gc.get_referrers)",
    "gc.get_referents": "walking every object (gc.get_referents)",
    "sys._current_frames": "reading other threads' frames (sys._current_frames)",
    "sys.settrace": "tracing the code that runs (sys.settrace)",
    "sys.setprofile": "profiling the code that runs (sys.setprofile)",
}
FRAME_ATTRIBUTES = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})
WATCHED = (
    PROCESS_EVENTS
    | NETWORK_EVENTS
    | frozenset(ALWAYS_REFUSED)
    | {"open", "sys._getframe", "os.kill", "os.killpg"}
)
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
MAX_SPEC_BYTES = 256 * 1024 * 1024


def install(config):
    """Open the pipes, greet the judge and add the audit hook.

    config: 'results' and 'inbox' (the pipes' paths, unlinked once open), 'readable',
    'writable', 'hidden' (refused even inside a readable one) and 'noted' (path prefixes;
    reading a 'noted' file, a stub of the checks or of the grader, is reported unless the import
    system does it), 'harness' (its source).
    """
    import _hashlib
    import _json
    import _signal
    import _thread
    import binascii
    import builtins
    import io
    import json
    import stat

    lstat, readlink, getcwd = os.lstat, os.readlink, os.getcwd
    getpid, getpgid, read, write = os.getpid, os.getpgid, os.read, os.write
    getframe, get_ident, is_link = sys._getframe, _thread.get_ident, stat.S_ISLNK
    getsignal, set_signal, sigmask = _signal.getsignal, _signal.signal, _signal.pthread_sigmask
    all_signals, keyboard = tuple(_signal.valid_signals()), _signal.default_int_handler
    sigint = _signal.SIGINT
    sig_ign, sig_block, sig_setmask = _signal.SIG_IGN, _signal.SIG_BLOCK, _signal.SIG_SETMASK
    real = dict(builtins.__dict__)  # the builtins as they are before the learner's code
    isinstance_, exec_, compile_, len_, str_ = (
        real["isinstance"],
        real["exec"],
        real["compile"],
        real["len"],
        real["str"],
    )
    encode = _json.make_encoder(
        None, _unencodable, _json.encode_basestring_ascii, None, ":", ",", False, False, True
    )
    scan = _json.make_scanner(json.JSONDecoder())
    harness = compile_(config["harness"], "<grader>", "exec")
    helpers = {
        "StringIO": io.StringIO,
        "sys": sys,
        "a2b_base64": binascii.a2b_base64,
        "b2a_base64": binascii.b2a_base64,
    }
    readable, hidden = tuple(config["readable"]), tuple(config.get("hidden", ()))
    writable = tuple(config["writable"]) + ("/dev/null",)
    noted = tuple(config.get("noted", ()))
    results = os.open(config["results"], os.O_WRONLY | os.O_CLOEXEC)
    inbox = os.open(config["inbox"], os.O_RDONLY | os.O_CLOEXEC)
    os.unlink(config["results"])
    os.unlink(config["inbox"])
    kernel_group = getpgid(0)
    key, hmac = os.urandom(32), _hashlib.hmac_digest  # the key goes to the judge, first, alone

    class PermissionError(builtins.PermissionError):  # noqa: A001 - the learner sees PermissionError
        """A refusal; IPython shows it as one line, without reading the guard's frames."""

        def _render_traceback_(self):
            return [f"PermissionError: {self}"]

    class ValueError(builtins.ValueError):  # noqa: A001 - what sys._getframe raises when too deep
        """A refused sys._getframe: the standard library's callers expect a ValueError."""

        def _render_traceback_(self):
            return [f"ValueError: {self}"]

    busy = frozenset()  # threads inside the hook's own checks (which raise events themselves)
    calling = False  # True while one of the judge's calls runs
    kept = (globals(),)  # the grader's namespaces, kept alive so their ids stay theirs
    protected = frozenset({id(globals())})

    def send(body, signed=True):
        """One line to the judge, signed with the key only the guard and the judge know; a pipe
        the learner closed loses it, and the judge says so."""
        line = "".join(encode(body, 0)).encode("ascii")
        if signed:
            line = hmac(key, line, "sha256").hex().encode("ascii") + b" " + line
        data = line + b"\n"
        try:
            while data:
                data = data[write(results, data) :]
        except OSError:
            pass

    def receive(call_id):
        """The judge's spec of this call from the inbox (length-prefixed JSON), or None."""
        while True:
            head = b""
            while len_(head) < 12:
                chunk = read(inbox, 12 - len_(head))
                if not chunk:
                    return None
                head += chunk
            size = int(head)
            if size > MAX_SPEC_BYTES:
                return None
            parts, left = [], size
            while left:
                chunk = read(inbox, min(left, 1 << 20))
                if not chunk:
                    return None
                parts.append(chunk)
                left -= len_(chunk)
            spec = scan(b"".join(parts).decode("utf-8"), 0)[0]
            if spec.get("id") == call_id:
                return spec

    def protect(namespace):
        """Make namespace's frames (a dict used as globals) the grader's own."""
        nonlocal kept, protected
        kept += (namespace,)
        protected = protected | {id(namespace)}

    def graders(frame):
        """True when frame, or a frame it was called from, runs the grader's code."""
        while frame is not None:
            if id(frame.f_globals) in protected:
                return True
            frame = frame.f_back
        return False

    def refuse(what, why="", error=PermissionError, report=True):
        if report:
            send({"kind": "refused", "what": str_(what)[:300]})
        raise error(f"{what}: not allowed while grading{why}")

    def resolve(path):
        """os.path.realpath on the functions captured above."""
        if not path.startswith("/"):
            path = getcwd() + "/" + path
        done, rest, links = "", [p for p in path.split("/") if p not in ("", ".")], 0
        while rest:
            part = rest.pop(0)
            if part == "..":
                done = done.rpartition("/")[0]
                continue
            candidate = done + "/" + part
            try:
                is_symlink = is_link(lstat(candidate).st_mode)
            except OSError:
                is_symlink = False
            if is_symlink and links < 40:
                links += 1
                target = readlink(candidate)
                done = "" if target.startswith("/") else done
                rest = [p for p in target.split("/") if p not in ("", ".")] + rest
            else:
                done = candidate
        return done or "/"

    def inside(path, prefixes):
        return any(path == p or path.startswith(p.rstrip("/") + "/") for p in prefixes)

    def by_import_system():
        frame = getframe(3)
        while frame is not None and id(frame.f_globals) in protected:
            frame = frame.f_back
        return frame is not None and frame.f_code.co_filename.startswith("<frozen importlib")

    def check_open(path, mode, flags):
        if path is None or isinstance_(path, int):
            return
        if isinstance_(path, bytes):
            path = path.decode("utf-8", "surrogateescape")
        if not isinstance_(
            path, str
        ):  # the open functions pass str: never call the notebook's code
            refuse("opening a file by an object that is not a path")
        path = resolve(path)
        writing = any(ch in (mode or "") for ch in "wax+") or bool((flags or 0) & WRITE_FLAGS)
        if writing and not inside(path, writable):
            refuse(f"writing {path}")
        if inside(path, hidden) or not inside(path, readable + writable):
            refuse(f"reading {path}", " (only the notebook's own files and Python are readable)")
        if inside(path, noted) and not by_import_system():
            send(
                {"kind": "refused", "what": f"reading {path} (the checks and the grader are stubs)"}
            )

    def check(event, args):
        if event == "open":
            check_open(*args[:3])
        elif event in PROCESS_EVENTS:
            refuse(f"starting a process ({event})")
        elif event in NETWORK_EVENTS:
            refuse(f"a network connection ({event})")
        elif event in ALWAYS_REFUSED:
            refuse(ALWAYS_REFUSED[event])
        elif event == "sys._getframe" and graders(args[0]):
            # Not reported: logging, namedtuple and enum ask for frames, and take the refusal well.
            refuse("reading the grader's frames (sys._getframe)", error=ValueError, report=False)
        elif event == "object.__getattr__" and args[1] in FRAME_ATTRIBUTES:
            frame = getattr(args[0], args[1])
            if frame is not None and graders(frame):
                refuse(f"reading the grader's frames ({args[1]})")
        elif event.startswith("ctypes.") and (event, args) != ("ctypes.dlopen", (None,)):
            refuse(f"using C code directly ({event})")
        elif (
            event == "os.kill"
            and args[0] != getpid()
            or event == "os.killpg"
            and (args[0] != kernel_group)
        ):
            refuse(f"signalling another process ({event})")
        elif event == "import" and args[0] == "_signal" and "_signal" not in sys.modules:
            refuse("importing _signal again")

    def paused_signals():
        """Ignore the notebook's signal handlers during a call; SIGINT (the judge's time limit)
        raises KeyboardInterrupt, whatever the notebook made of it."""
        saved = []
        for number in all_signals:
            handler = getsignal(number)
            wanted = keyboard if number == sigint else sig_ign
            if handler is not wanted and (number == sigint or callable(handler)):
                set_signal(number, wanted)
                saved.append((number, handler))
        return saved

    def run_call(call_id, user):
        nonlocal calling
        if calling:
            refuse("calling the grader from the notebook's code")
        if not (isinstance_(call_id, str) and isinstance_(user, dict)):
            return
        saved, calling = paused_signals(), True
        try:
            spec = receive(call_id)
            if spec is None:
                body = {"kind": "call", "id": call_id, "error": "the call's inputs did not arrive"}
            else:
                scope = {"__name__": "grader", "__builtins__": dict(real), **helpers}
                protect(scope)
                exec_(harness, scope)
                body = scope["run_call"](spec, user, protect)
        except BaseException as error:  # a KeyboardInterrupt (the judge's time limit) too
            body = {"kind": "call", "id": call_id, "error": f"{type(error).__name__}: {error}"}
        finally:
            calling = False
            for number, handler in saved:
                set_signal(number, handler)
        send(body)

    def guarded_signal(number, handler):
        if calling:
            refuse("installing a signal handler during a grader call")
        return set_signal(number, handler)

    def watched(event, args):
        """Whether the hook must look at this event (most events need nothing)."""
        if event.startswith("ctypes."):
            return True
        if event == "object.__getattr__":
            return args[1] in FRAME_ATTRIBUTES
        if event == "import":
            return args[0] == "_signal"
        return event in WATCHED

    def hook(event, args):
        nonlocal busy
        if event == CALL_EVENT:
            return run_call(*args[:2])
        if event == USED_EVENT:
            return send({"kind": "used", "what": str_(args[0])[:300]})
        me = get_ident()
        if me in busy or not watched(event, args):
            return
        blocked = sigmask(sig_block, all_signals)  # no handler may run on the hook's frames
        busy = busy | {me}
        try:
            check(event, args)
        finally:
            busy = busy - {me}
            sigmask(sig_setmask, blocked)

    _pin_messages(_json, scan)
    send({"kind": "hello", "pid": getpid(), "key": key.hex()}, signed=False)
    _signal.signal = guarded_signal
    sys.addaudithook(hook)


def _pin_messages(_json, scan):
    """Let the kernel's Jupyter messages use the JSON coder as it is now, so that a notebook that
    patches json does not garble the messages that tell the judge a cell has finished."""
    session_module = sys.modules.get("jupyter_client.session")
    app_module = sys.modules.get("ipykernel.kernelapp")
    if not (session_module and app_module and app_module.IPKernelApp.initialized()):
        return  # not in a kernel (a test of the guard alone)
    session = app_module.IPKernelApp.instance().session
    if session.packer != "json":
        return
    fallback, default = session_module.json_packer, session_module.json_default
    encode = _json.make_encoder(
        None, default, _json.encode_basestring, None, ": ", ", ", False, False, False
    )

    def pack(message):
        try:
            return "".join(encode(message, 0)).encode("utf8", errors="surrogateescape")
        except (TypeError, ValueError):
            return fallback(message)

    def unpack(data):
        return scan(data.decode("utf8", "replace") if isinstance(data, bytes) else data, 0)[0]

    session.pack, session.unpack = pack, unpack


def _unencodable(value):
    raise TypeError(f"{type(value).__name__} is not plain data")
