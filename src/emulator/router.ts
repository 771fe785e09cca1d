/**
 * Matches a path against the route table. An unknown path, or a known one with another method, is
 * 404: the spec's statuses have no 405 (docs/emulator.md).
 */
import type { Route } from "./context.js";
import { notFound } from "./errors.js";

interface CompiledRoute {
  route: Route;
  regex: RegExp;
  names: string[];
}

export class Router {
  private readonly compiled: CompiledRoute[];

  constructor(routes: readonly Route[]) {
    this.compiled = routes.map((route) => {
      const names: string[] = [];
      const source = route.pattern
        .split("/")
        .map((part) => {
          if (!part.startsWith(":")) return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
          names.push(part.slice(1));
          return "([^/]+)";
        })
        .join("/");
      return { route, regex: new RegExp(`^${source}$`), names };
    });
  }

  match(method: string, path: string): { route: Route; params: Record<string, string> } {
    for (const { route, regex, names } of this.compiled) {
      if (route.method !== method) continue;
      const found = regex.exec(path);
      if (!found) continue;
      const params: Record<string, string> = {};
      for (const [i, name] of names.entries()) {
        const raw = found[i + 1] ?? "";
        try {
          params[name] = decodeURIComponent(raw);
        } catch {
          // A malformed escape cannot name an existing object.
          throw notFound();
        }
      }
      return { route, params };
    }
    throw notFound();
  }
}
