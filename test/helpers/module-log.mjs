// `node --import ./module-log.mjs`: registers module-log-hooks.mjs before the program loads.
import { register } from "node:module";

register("./module-log-hooks.mjs", import.meta.url);
