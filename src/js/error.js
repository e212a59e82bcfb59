/** The error every failing call of fundraising-client rejects with. */
export class FundraisingError extends Error {
  constructor(code, message, status) {
    super(message);
    this.name = "FundraisingError";
    /** Stable machine-readable code, e.g. "not_found". */
    this.code = code;
    /** The HTTP status behind the error, or null. */
    this.status = status === undefined ? null : status;
  }
}

export function newFundraisingError(code, message, status) {
  return new FundraisingError(code, message, status);
}
