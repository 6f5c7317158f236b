/** An Amazon States Language definition (JSONPath), as plain JSON. */
export type AslDefinition = {
  Comment?: string;
  StartAt: string;
  TimeoutSeconds?: number;
  States: Record<string, Record<string, unknown>>;
};
