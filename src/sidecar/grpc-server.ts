export async function startRlsServer(_: unknown): Promise<{ address: string; stop: () => Promise<void> }> {
  throw new Error('todo');
}
