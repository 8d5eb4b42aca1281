/// The files of `Fixtures/`, embedded in the binary so that `feedsh --demo` and the
/// tests work offline and from any directory.
///
/// Every file listed here is also named by an `.embedInCode` rule in Package.swift;
/// `FixtureServerTests` checks that the two lists and the folder agree.
public enum FixtureFiles {
    /// Fixture bytes by path relative to `Fixtures/`.
    public static let all: [String: [UInt8]] = [
        "itunes/lookup-1386867488.json": PackageResources.lookup_1386867488_json,
        "itunes/lookup-1000000001.json": PackageResources.lookup_1000000001_json,
        "itunes/lookup-1000000002.json": PackageResources.lookup_1000000002_json,
        "itunes/lookup-1000000003.json": PackageResources.lookup_1000000003_json,
        "itunes/lookup-1000000004.json": PackageResources.lookup_1000000004_json,
        "itunes/search-podcasts.json": PackageResources.search_podcasts_json,
        "posts/posts.json": PackageResources.posts_json,
        "posts/comments.json": PackageResources.comments_json,
        "itunes/search-music.json": PackageResources.search_music_json,
        "met/objects.json": PackageResources.objects_json,
        "images/artwork.jpg": PackageResources.artwork_jpg,
        "images/photo.png": PackageResources.photo_png,
        "images/tiles.gif": PackageResources.tiles_gif,
        "images/swatch.webp": PackageResources.swatch_webp,
        "feeds/quirks.rss": PackageResources.quirks_rss,
        "feeds/hostile.rss": PackageResources.hostile_rss,
        "feeds/atom.xml": PackageResources.atom_xml,
        "feeds/latin1.rss": PackageResources.latin1_rss,
        "feeds/cp1252.rss": PackageResources.cp1252_rss,
        "feeds/bom.rss": PackageResources.bom_rss,
        "feeds/bomb.rss": PackageResources.bomb_rss,
        "opml/gpodder.opml": PackageResources.gpodder_opml,
        "opml/antennapod.opml": PackageResources.antennapod_opml,
        "opml/apple.opml": PackageResources.apple_opml,
        "opml/control.opml": PackageResources.control_opml,
        "feeds/world.rss": PackageResources.world_rss,
        "feeds/world.atom": PackageResources.world_atom,
        "itunes/lookup-1000000005.json": PackageResources.lookup_1000000005_json,
        "podcastindex/search.json": PackageResources.search_json,
    ]
}
