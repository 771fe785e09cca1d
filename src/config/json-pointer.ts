/**
 * JSON pointers (RFC 6901), as ajv names the values that break the schema: what a pointer
 * reaches in a parsed document, and a key written as a pointer segment.
 */

export function escapePointer(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

export interface Located {
  segments: (string | number)[];
  parent: unknown;
  data: unknown;
}

export function locate(value: unknown, pointer: string): Located {
  const segments: (string | number)[] = [];
  let parent: unknown;
  let data = value;
  for (const raw of pointer === "" ? [] : pointer.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    parent = data;
    if (typeof data !== "object" || data === null) {
      segments.push(key);
      data = undefined;
    } else if (Array.isArray(data)) {
      segments.push(Number(key));
      data = data[Number(key)];
    } else {
      segments.push(key);
      data = (data as Record<string, unknown> | undefined)?.[key];
    }
  }
  return { segments, parent, data };
}
