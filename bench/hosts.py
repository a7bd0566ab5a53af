"""Several hosts on one machine, for `python -m bench.soak --hosts`: Linux network namespaces
joined by a bridge, nothing beyond the machine (docs/deploy.md, "Several hosts").

    players (this machine's own namespace)  10.X.Y.1, the bridge
    db      PostgreSQL on 10.X.Y.2:5432, Redis on 10.X.Y.3:6379
    web1    a Daphne on 10.X.Y.11:8001, a Celery worker, beat
    web2    a Daphne on 10.X.Y.12:8001, a Celery worker
    proxy   nginx on 10.X.Y.20:8080: every request to either Daphne, a table's socket to
            the one its id hashes to (as docs/deploy.md's nginx does), the other when that
            one cannot be reached

Each host is a namespace with one veth link to the bridge; a host is cut off by taking its
link down, and cut off from one address by a blackhole route. Needs root (or CAP_NET_ADMIN)
and `ip` from iproute2; `available()` says why not when it cannot run here.
"""

import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOSTS = ("db", "web1", "web2", "proxy")
WEB_PORT = 8001
PROXY_PORT = 8080


def available():
    """'' when namespaces can be made here, else why not."""
    if shutil.which("ip") is None:
        return "needs `ip` (iproute2)"
    if shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists():
        return "needs nginx (Debian's nginx) for the proxy host"
    name = f"wctprobe{uuid.uuid4().hex[:6]}"
    made = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True)
    if made.returncode != 0:
        return f"network namespaces are not allowed here: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", name], capture_output=True)
    return ""


def _ip(*args):
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=30)


class Hosts:
    """The namespaces, their links and addresses; removed on exit."""

    def __init__(self):
        tag = uuid.uuid4().hex[:5]
        self.bridge = f"wct{tag}"
        net = f"10.{random.randint(100, 250)}.{random.randint(0, 255)}"
        self.subnet = f"{net}.0/24"
        self.addr = {
            "players": f"{net}.1",
            "db": f"{net}.2",
            "redis": f"{net}.3",
            "web1": f"{net}.11",
            "web2": f"{net}.12",
            "proxy": f"{net}.20",
        }
        self.ns = {host: f"wct{tag}-{host}" for host in HOSTS}

    def __enter__(self):
        try:
            _ip("link", "add", self.bridge, "type", "bridge")
            _ip("addr", "add", f"{self.addr['players']}/24", "dev", self.bridge)
            _ip("link", "set", self.bridge, "up")
            for host in HOSTS:
                ns, veth = self.ns[host], f"{self.bridge}{host[0]}{host[-1]}"
                _ip("netns", "add", ns)
                _ip("link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns)
                _ip("link", "set", veth, "master", self.bridge, "up")
                _ip("-n", ns, "link", "set", "lo", "up")
                _ip("-n", ns, "addr", "add", f"{self.addr[host]}/24", "dev", "eth0")
                if host == "db":
                    _ip("-n", ns, "addr", "add", f"{self.addr['redis']}/24", "dev", "eth0")
                _ip("-n", ns, "link", "set", "eth0", "up")
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc):
        for ns in self.ns.values():
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        subprocess.run(["ip", "link", "del", self.bridge], capture_output=True)

    def prefix(self, host):
        """What runs a command on `host`."""
        return ["ip", "netns", "exec", self.ns[host]]

    def link(self, host, up):
        """Takes `host`'s only link down (cut off from every other host) or up again."""
        _ip("-n", self.ns[host], "link", "set", "eth0", "up" if up else "down")

    def unreachable(self, host, address, cut):
        """`host` can no longer reach `address` (a blackhole route), or can again."""
        _ip("-n", self.ns[host], "route", "add" if cut else "del", "blackhole", f"{address}/32")


class HostSite:
    """The site's processes on the web hosts and nginx on the proxy host, with the names
    bench/soak.py knows: daphne-1 (web1), daphne-2 (web2), celery-worker (web1),
    celery-worker-2 (web2), celery-beat (web1)."""

    PLACES = {
        "daphne-1": "web1",
        "daphne-2": "web2",
        "celery-worker": "web1",
        "celery-worker-2": "web2",
        "celery-beat": "web1",
    }

    def __init__(self, hosts, queue, work):
        self.hosts, self.queue, self.work = hosts, queue, Path(work)
        self.children = {}
        self.host = hosts.addr["proxy"]
        self.ports = [PROXY_PORT]

    def __enter__(self):
        self.log = tempfile.NamedTemporaryFile(  # noqa: SIM115 -- kept if anything was written
            "w+", prefix="bench-hosts-", suffix=".log", delete=False
        )
        self.env = dict(
            os.environ,
            LOG_LEVEL="WARNING",
            CELERY_QUEUE=self.queue,
            ALLOWED_HOSTS=self.host,
        )
        for name in self.PLACES:
            self.start(name)
        self._nginx()
        from bench.load import _wait_for

        for name, host in self.PLACES.items():
            if name.startswith("daphne-"):
                _wait_for(WEB_PORT, self.hosts.addr[host])
        _wait_for(PROXY_PORT, self.host)
        return self

    def command(self, name):
        python = sys.executable
        host = self.PLACES[name]
        if name.startswith("daphne-"):
            program = [python, "-m", "daphne", "--proxy-headers", "-b", self.hosts.addr[host],
                       "-p", str(WEB_PORT), "config.asgi:application"]  # fmt: skip
        elif name.startswith("celery-worker"):
            program = [python, "-m", "celery", "-A", "config", "worker", "-l", "WARNING",
                       "--concurrency", "1", "-Q", self.queue, "-n", f"{name}@{host}"]  # fmt: skip
        else:
            program = [python, "-m", "celery", "-A", "config", "beat", "-l", "WARNING",
                       "--schedule", str(self.work / "beat-schedule")]  # fmt: skip
        return self.hosts.prefix(host) + program

    def start(self, name):
        self.children[name] = subprocess.Popen(
            self.command(name),
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=self.log,
        )

    def kill(self, name):
        child = self.children[name]
        child.send_signal(signal.SIGKILL)  # `ip netns exec` runs the program in its place
        child.wait(10)

    def on(self, host):
        return [name for name, place in self.PLACES.items() if place == host]

    def _nginx(self):
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        conf = self.work / "nginx.conf"
        web = [f"{self.hosts.addr[h]}:{WEB_PORT}" for h in ("web1", "web2")]
        servers = "".join(f"        server {w} max_fails=1 fail_timeout=10s;\n" for w in web)
        temp = self.work / "nginx-temp"
        temp.mkdir(exist_ok=True)
        conf.write_text(
            NGINX.format(
                work=self.work, temp=temp, servers=servers, listen=f"{self.host}:{PROXY_PORT}"
            )
        )
        self.children["nginx"] = subprocess.Popen(
            [*self.hosts.prefix("proxy"), nginx, "-c", str(conf), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=self.log,
        )

    def __exit__(self, *exc):
        from bench.load import stop

        stop(self.children.values(), self.log)


# The proxy host's nginx: docs/deploy.md's routing (any Daphne for requests and the site's
# socket, a table's socket to the Daphne its id hashes to) without TLS, on plain HTTP. A
# Daphne that cannot be reached is skipped for 10 s and its tables' sockets go to the other.
NGINX = """
worker_processes 1;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log warn;
events {{ worker_connections 8192; }}
http {{
    access_log off;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
    upstream wildcards {{
{servers}    }}
    upstream wildcards_tables {{
        hash $table consistent;
{servers}    }}
    map $http_upgrade $connection_upgrade {{
        default upgrade;
        ''      close;
    }}
    server {{
        listen {listen};
        proxy_http_version 1.1;
        proxy_connect_timeout 2s;
        proxy_set_header Host $http_host;
        proxy_set_header X-Forwarded-For $remote_addr;
        location ~ ^/ws/games/(?<table>[0-9]+)/$ {{
            proxy_pass http://wildcards_tables;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $remote_addr;
            proxy_read_timeout 1h;
            proxy_send_timeout 1h;
        }}
        location /ws/ {{
            proxy_pass http://wildcards;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $remote_addr;
            proxy_read_timeout 1h;
        }}
        location / {{
            proxy_pass http://wildcards;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $remote_addr;
        }}
    }}
}}
"""
