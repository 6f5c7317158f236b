// asl-validator 4 ships no type declarations; this is the part of its API the tests call.
declare module "asl-validator" {
  export default function aslValidator(
    definition: unknown,
    options?: { checkPaths?: boolean; checkArn?: boolean },
  ): { isValid: boolean; errors: unknown[]; errorsText(separator?: string): string };
}
