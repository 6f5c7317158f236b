import type { VerifyContext } from "../verify-context";
import type { VerifyIssue } from "../verify-issues";

/** One of `verify`'s checks: its name, and what it finds over the shared context. */
export interface VerifyCheck {
  name: string;
  run(context: VerifyContext): VerifyIssue[] | Promise<VerifyIssue[]>;
}
