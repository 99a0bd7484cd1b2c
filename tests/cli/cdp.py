"""A headless Chromium driven through the DevTools protocol on a pipe
(--remote-debugging-pipe: commands on its fd 3, answers on its fd 4, each
message JSON ended by a NUL byte), for the tests that open pfconv's SVG
and HTML outputs. Collects every JavaScript error of the page: uncaught
exceptions, console.error() and errors the browser logs (a script that
fails to parse, a resource refused)."""
import base64
import json
import os
import select
import subprocess
import time


class Browser:
    def __init__(self, chromium, profile_dir, timeout=120):
        self.timeout = timeout
        r_cmd, w_cmd = os.pipe()  # we write commands, chromium reads fd 3
        r_ans, w_ans = os.pipe()  # chromium writes answers on fd 4
        args = [chromium, '--headless', '--no-sandbox', '--disable-gpu',
                '--disable-background-networking', '--disable-component-update',
                '--disable-sync', '--no-first-run', '--disable-extensions',
                '--user-data-dir=' + profile_dir, '--remote-debugging-pipe',
                '--window-size=1280,900', 'about:blank']

        def fds():  # in the child: the pipes as its fds 3 and 4
            a, b = os.dup(r_cmd), os.dup(w_ans)  # out of the way of 3 and 4
            os.dup2(a, 3)
            os.dup2(b, 4)
        self.proc = subprocess.Popen(args, pass_fds=(3, 4), preexec_fn=fds,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=open(os.path.join(profile_dir, 'chromium.log'), 'w'))
        os.close(r_cmd)
        os.close(w_ans)
        self.w, self.r = w_cmd, r_ans
        self.buf = b''
        self.next_id = 0
        self.events = []
        self.errors = []
        self.session = None

    def close(self):
        try:
            self.send('Browser.close', session=False, wait=False)
        except OSError:
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.w)
        os.close(self.r)

    def _read(self, deadline):
        while b'\0' not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError('chromium did not answer within %d s' % self.timeout)
            ready, _, _ = select.select([self.r], [], [], left)
            if ready:
                chunk = os.read(self.r, 1 << 20)
                if not chunk:
                    raise EOFError('chromium closed its pipe (exit %s)' % self.proc.poll())
                self.buf += chunk
        msg, self.buf = self.buf.split(b'\0', 1)
        return json.loads(msg)

    def _note(self, m):
        method = m.get('method', '')
        p = m.get('params', {})
        if method == 'Runtime.exceptionThrown':
            d = p['exceptionDetails']
            ex = d.get('exception', {}).get('description') or d.get('text')
            self.errors.append('exception: %s (line %s)' % (ex, d.get('lineNumber')))
        elif method == 'Runtime.consoleAPICalled' and p.get('type') in ('error', 'assert'):
            self.errors.append('console.%s: %s' % (p['type'], ' '.join(
                str(a.get('value', a.get('description'))) for a in p.get('args', []))))
        elif method == 'Log.entryAdded' and p['entry'].get('level') == 'error':
            self.errors.append('log: %s (%s)' % (p['entry'].get('text'), p['entry'].get('url', '')))
        self.events.append(m)

    def send(self, method, params=None, session=True, wait=True):
        self.next_id += 1
        msg = {'id': self.next_id, 'method': method, 'params': params or {}}
        if session and self.session:
            msg['sessionId'] = self.session
        os.write(self.w, json.dumps(msg).encode() + b'\0')
        if not wait:
            return None
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._read(deadline)
            if m.get('id') == self.next_id:
                if 'error' in m:
                    raise RuntimeError('%s: %s' % (method, m['error']))
                return m.get('result', {})
            self._note(m)

    def wait_event(self, method):
        for i, m in enumerate(self.events):
            if m.get('method') == method:
                del self.events[i]
                return m
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._read(deadline)
            self._note(m)
            if m.get('method') == method:
                self.events.pop()
                return m

    def open(self, url):
        """A new page at url, its load event waited for."""
        t = self.send('Target.createTarget', {'url': 'about:blank'}, session=False)
        a = self.send('Target.attachToTarget', {'targetId': t['targetId'], 'flatten': True},
                      session=False)
        self.session = a['sessionId']
        for domain in ('Runtime', 'Log', 'Page'):
            self.send(domain + '.enable')
        self.send('Page.navigate', {'url': url})
        self.wait_event('Page.loadEventFired')

    def eval(self, expr):
        r = self.send('Runtime.evaluate', {'expression': expr, 'returnByValue': True,
                                           'awaitPromise': True})
        if 'exceptionDetails' in r:
            d = r['exceptionDetails']
            raise RuntimeError('%s: %s' % (expr[:80], d.get('exception', {}).get('description')
                                           or d.get('text')))
        return r['result'].get('value')

    def wait_for(self, expr):
        """Poll expr until it is true (or the timeout)."""
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            v = self.eval(expr)
            if v:
                return v
            if self.errors:
                return v
            time.sleep(0.1)
        raise TimeoutError('never true within %d s: %s' % (self.timeout, expr))

    def screenshot(self, path):
        r = self.send('Page.captureScreenshot', {'format': 'png', 'captureBeyondViewport': True})
        with open(path, 'wb') as f:
            f.write(base64.b64decode(r['data']))
