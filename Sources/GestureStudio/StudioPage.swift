/// The studio's single page (HTML, CSS and JS in one file, Sources/GestureStudio/Page/studio.html),
/// compiled into the binary by SwiftPM's `embedInCode`: no CDN, no bundle to find at run time,
/// no Node build step; works with no network.
enum StudioPage {
    static let html: [UInt8] = PackageResources.studio_html
}
