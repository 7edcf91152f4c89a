// No-op marked extension with the package's call shape: `marked.use(markedCjkFriendly())`.
export default function markedCjkFriendly() {
  return {};
}
