/**
 * The only platform API the pure core may use: WHATWG URL (identical in Node, browsers and workers).
 * Declared by hand so nothing else of the DOM leaks into src/.
 */
declare class URLSearchParams {
  constructor(init?: string);
  append(name: string, value: string): void;
  get(name: string): string | null;
  set(name: string, value: string): void;
  forEach(cb: (value: string, key: string) => void): void;
  toString(): string;
}

declare class URL {
  constructor(url: string, base?: string);
  hash: string;
  host: string;
  hostname: string;
  href: string;
  password: string;
  pathname: string;
  protocol: string;
  search: string;
  readonly searchParams: URLSearchParams;
  username: string;
  toString(): string;
}
