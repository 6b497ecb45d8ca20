/**
 * A response whose body is bytes already in hand (a tagged read's), kept as `content` and written
 * by the server as they are: no body stream is built around them only to be read back out of it
 * (the stream's `body` is null; nothing but the server reads an answer's body).
 */
export class BytesResponse extends Response {
  constructor(
    readonly content: Uint8Array<ArrayBuffer>,
    init: ResponseInit,
  ) {
    super(null, init);
  }
}
