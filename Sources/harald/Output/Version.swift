/// Harald's version: what `harald --version` prints and what the README's dependency line pins.
/// The one place it is written; change it with each release tag.
enum HaraldVersion {
    static let string = "0.1.0"
}
