/// One `property: value` declaration, with shorthands (`margin`, `padding`, `font`,
/// `list-style`) already expanded into the longhands the parser reads.
struct CSSDeclaration: Sendable, Hashable {
    var property: String
    var value: String
    var important = false
}
