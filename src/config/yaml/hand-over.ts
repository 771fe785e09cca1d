/** Thrown inside the fast reader to hand the text to the full reader; readPlainYaml catches it. */
export class HandOver extends Error {}
