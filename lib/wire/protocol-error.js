// A peer sent bytes that break the protocol: the relay closes that one
// connection and logs the message at debug level, never a stack trace.
export function protocolError(message) {
  const error = new Error(message);
  error.code = 'ERR_CIPHERBENCH_PROTOCOL';
  return error;
}

export const isProtocolError = (error) => error?.code === 'ERR_CIPHERBENCH_PROTOCOL';
