"""A `lanecall centre` for the benches that measure one (hostile.py,
centre_import.py): the example programme (tests/programme/example.toml),
a broker out of reach (no lane is needed) and a judge's PIN.

Python 3, standard library only.
"""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

PIN = "123456"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def status(pid):
    """VmRSS and VmHWM (the peak) of process `pid`, in kB."""
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0])
    return out


class Centre:
    """`binary centre` in a folder of its own, answering on `self.web`;
    a `with` block stops it and removes the folder."""

    def __init__(self, binary, name):
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        self.work = work = tempfile.mkdtemp(prefix=f"lanecall-{name}-bench-")
        shutil.copy(os.path.join(root, "tests/programme/example.toml"), work)
        pin_hash = subprocess.run([binary, "hash-pin", PIN], capture_output=True,
                                  text=True, check=True).stdout.strip()
        self.web, mqtt = free_port(), free_port()
        config = os.path.join(work, "centre.toml")
        with open(config, "w") as f:
            f.write(f'site = "bench"\nstate_dir = "{work}/state"\n'
                    f'broker = "mqtt://127.0.0.1:{mqtt}"\n'
                    f'programme = "{work}/example.toml"\n'
                    f'[web]\nlisten = "127.0.0.1:{self.web}"\njudge_pin_hash = "{pin_hash}"\n')
        log = os.path.join(work, "centre.log")
        with open(log, "w") as f:
            self.process = subprocess.Popen([binary, "centre", "--config", config],
                                            stdout=subprocess.DEVNULL, stderr=f)
        self.pid = self.process.pid
        deadline = time.time() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.web), timeout=1).close()
                return
            except OSError:
                if time.time() > deadline or self.process.poll() is not None:
                    self.stop()
                    sys.exit("the centre did not start: see " + log)
                time.sleep(0.1)

    def status(self):
        return status(self.pid)

    def stop(self):
        self.process.terminate()
        self.process.wait()
        shutil.rmtree(self.work, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.stop()
