/**
 * The fast reader's one signal that a text is beyond its reach: thrown anywhere inside it,
 * caught only by readPlainYaml, which then leaves the text to the full reader. Any other
 * error in the fast reader is a bug, and propagates as one.
 */
export class HandOver extends Error {
  override readonly name = "HandOver";
}
