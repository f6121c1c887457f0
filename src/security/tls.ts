/** TLS failure codes (Node/OpenSSL) and how to say them, shared by the controller and LLM clients. */
export const TLS_CODES: ReadonlySet<string> = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'EPROTO',
]);

/** "TLS handshake failed (is the server plain http?)" for protocol mismatches, else `TLS error CODE (<certHint>)`. */
export function tlsHint(code: string, certHint: string): string {
  return code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'EPROTO'
    ? 'TLS handshake failed (is the server plain http?)'
    : `TLS error ${code} (${certHint})`;
}
