/**
 * zod's English issue messages for every schema (`Invalid input: expected string, received
 * number`). The schemas are built with `zod/mini`, which, unlike `zod`, sets no locale of its own:
 * without this, every issue would read `Invalid input`. A module of side effects alone, named in
 * the package's `sideEffects` so that bundlers keep it; the package's index imports it first.
 */
import { en } from "zod/locales";
import { config } from "zod/mini";

config(en());
