/**
 * An XMLHttpRequest stand-in for the admin's upload tests: every upload waits until the test
 * answers it (respond), and can report progress first. Stub it with vi.stubGlobal after
 * emptying FakeXhr.all.
 */
export class FakeXhr {
  static all: FakeXhr[] = [];
  url = "";
  body: File | null = null;
  withCredentials = false;
  headers: Record<string, string> = {};
  status = 0;
  statusText = "";
  responseText = "";
  responseHeaders: Record<string, string> = {};
  upload: { onprogress: ((e: { loaded: number; total: number; lengthComputable: boolean }) => void) | null } = {
    onprogress: null,
  };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  ontimeout: (() => void) | null = null;
  onabort: (() => void) | null = null;
  constructor() {
    FakeXhr.all.push(this);
  }
  open(_method: string, url: string) {
    this.url = url;
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name] = value;
  }
  send(body: File) {
    this.body = body;
  }
  abort() {}
  progress(loaded: number) {
    this.upload.onprogress?.({ loaded, total: this.body!.size, lengthComputable: true });
  }
  getResponseHeader(name: string) {
    return this.responseHeaders[name.toLowerCase()] ?? null;
  }
  respond(status: number, text = "", headers: Record<string, string> = {}) {
    this.status = status;
    this.responseText = text;
    this.responseHeaders = headers;
    this.onload?.();
  }
}
