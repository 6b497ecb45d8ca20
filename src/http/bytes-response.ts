/**
 * A response whose body is bytes already in hand (a tagged read's): the server writes them as they
 * are instead of reading them back out of the body stream.
 */
export class BytesResponse extends Response {
  constructor(
    readonly content: Uint8Array<ArrayBuffer>,
    init: ResponseInit,
  ) {
    super(content, init);
  }
}
