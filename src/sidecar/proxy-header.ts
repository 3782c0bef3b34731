/**
 * A body the proxy must repeat, carried in a response header of the sidecar's answer: NGINX's
 * auth_request drops the subrequest's body but can read its headers (`auth_request_set`), and
 * `return` can answer with them (docs/examples/nginx.conf's @fleetlimit). A header value is one line
 * of printable ASCII: line breaks and tabs become spaces, any other code unit outside it a `\uXXXX`
 * escape (inside a JSON string, the same character; outside one, JSON has none). Null when the line
 * would be longer than `max` (a cut body would be a broken one).
 */
export function headerText(body: string, max: number): string | null {
  const one = body.replace(/\r?\n$/, '');
  let out = '';
  for (let i = 0; i < one.length; i++) {
    const c = one.charCodeAt(i);
    if (c >= 0x20 && c < 0x7f) out += one[i];
    else if (c === 0x0a || c === 0x0d || c === 0x09) out += ' ';
    else out += `\\u${c.toString(16).padStart(4, '0')}`;
    if (out.length > max) return null;
  }
  return out;
}

/** The longest body carried in a header: NGINX reads a response's headers into one 4 KB buffer. */
export const MAX_HEADER_BODY = 2048;
