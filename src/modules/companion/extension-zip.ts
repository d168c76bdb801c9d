/**
 * The browser companion's zip (`bun run build:extension` writes dist/extension.zip). The compiled binary
 * carries it as an embedded file (scripts/build.ts passes it to `bun build --compile`); from a checkout it is
 * read from dist/. Null when neither has it (a checkout where the extension was never built).
 */
import { join } from "node:path";

const ZIP_NAME = /^extension(-[a-z0-9]+)?\.zip$/;

export async function extensionZip(): Promise<Blob | null> {
  const embedded = Bun.embeddedFiles.find((f) => ZIP_NAME.test((f as Blob & { name?: string }).name ?? ""));
  if (embedded) return embedded;
  const onDisk = Bun.file(join(import.meta.dir, "../../../dist/extension.zip"));
  return (await onDisk.exists()) ? onDisk : null;
}
