// The commands a reader of README.md types on a fresh machine: the lines of its first ```sh block.
// The fresh-machine proof runs exactly these, so that it follows the README when the README changes.

/** The non-empty lines of the first ```sh block, each as written (a trailing comment included). */
export function readmeCommands(markdown: string): string[] {
  const block = /^```sh[ \t]*\r?\n([\s\S]*?)^```[ \t]*$/m.exec(markdown);
  if (block?.[1] === undefined) throw new Error('README.md has no ```sh block with the commands to prove');
  const commands = block[1]
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  if (commands.length === 0) throw new Error("README.md's first ```sh block holds no command");
  return commands;
}
