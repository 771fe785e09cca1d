/**
 * Mermaid's own parser, the one GitHub renders charts with (the `mermaid` devDependency is
 * pinned to a 11.x release; GitHub renders with Mermaid 11), under jsdom since Mermaid
 * expects a browser. Only a parse: the faithful check that a chart in a status report is
 * not the "Parse error" box GitHub shows for a chart it cannot read.
 */
import { JSDOM } from "jsdom";

type Mermaid = { parse(text: string): Promise<unknown>; initialize(config: object): void };
let loaded: Promise<Mermaid> | undefined;

function load(): Promise<Mermaid> {
  loaded ??= (async () => {
    const dom = new JSDOM("<!doctype html><html><body></body></html>", { pretendToBeVisual: true });
    const globals = globalThis as Record<string, unknown>;
    globals.window = dom.window;
    globals.document = dom.window.document;
    for (const name of ["Element", "HTMLElement", "SVGElement", "Node", "DOMParser"]) {
      if (!(name in globals)) globals[name] = (dom.window as unknown as Record<string, unknown>)[name];
    }
    const { default: mermaid } = (await import("mermaid")) as unknown as { default: Mermaid };
    mermaid.initialize({ startOnLoad: false });
    return mermaid;
  })();
  return loaded;
}

/** The ```mermaid blocks of a Markdown text. */
export function mermaidBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```mermaid\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
}

/** Parses every Mermaid block of `markdown` with Mermaid's parser; throws its parse error. Returns how many. */
export async function parseMermaidBlocks(markdown: string): Promise<number> {
  const mermaid = await load();
  const blocks = mermaidBlocks(markdown);
  for (const block of blocks) await mermaid.parse(block);
  return blocks.length;
}
