import Foundation

/// One object of the Metropolitan Museum's collection API, with its text ready to
/// show: HTML entities decoded, and the API's empty strings turned into nil.
public struct MetObject: Decodable, Sendable, Hashable, Identifiable {
    public let id: Int
    public let title: String
    /// `artistDisplayName`, or the first constituent's name.
    public let artist: String?
    /// `objectDate`, as the museum writes it (`ca. 1889`, `18th century`).
    public let date: String?
    public let medium: String?
    public let department: String?
    public let culture: String?
    public let dimensions: String?
    public let creditLine: String?
    public let accessionNumber: String?
    public let isPublicDomain: Bool
    /// The full-size primary image, when the museum publishes one.
    public let primaryImage: URL?
    public let additionalImageCount: Int
    /// Makers with their roles (`Artist`, `Publisher`); empty when the API has null.
    public let constituents: [Constituent]
    public let tags: [String]
    public let objectURL: URL?
    /// When the record last changed (`metadataDate`, 1 to 3 fractional digits).
    public let metadataDate: Date?

    public struct Constituent: Decodable, Sendable, Hashable {
        public let role: String?
        public let name: String

        private enum Keys: String, CodingKey { case role, name }

        public init(from decoder: any Decoder) throws {
            let record = try decoder.container(keyedBy: Keys.self)
            role = record.text(.role)
            name = record.text(.name) ?? "(unnamed)"
        }
    }

    private struct Tag: Decodable { let term: String? }

    private enum Keys: String, CodingKey {
        case objectID, title, artistDisplayName, objectDate, medium, department, culture, dimensions, creditLine
        case accessionNumber, isPublicDomain, primaryImage, additionalImages, constituents, tags, objectURL
        case metadataDate
    }

    public init(from decoder: any Decoder) throws {
        let record = try decoder.container(keyedBy: Keys.self)
        id = try record.decode(Int.self, forKey: .objectID)
        title = record.text(.title) ?? "(untitled)"
        constituents = try record.decodeIfPresent([Constituent].self, forKey: .constituents) ?? []
        artist = record.text(.artistDisplayName) ?? constituents.first?.name
        date = record.text(.objectDate)
        medium = record.text(.medium)
        department = record.text(.department)
        culture = record.text(.culture)
        dimensions = record.text(.dimensions)
        creditLine = record.text(.creditLine)
        accessionNumber = record.text(.accessionNumber)
        isPublicDomain = try record.decodeIfPresent(Bool.self, forKey: .isPublicDomain) ?? false
        primaryImage = try record.decodeURLIfPresent(forKey: .primaryImage)
        additionalImageCount = (try record.decodeIfPresent([String].self, forKey: .additionalImages))?.count ?? 0
        tags = (try record.decodeIfPresent([Tag].self, forKey: .tags) ?? []).compactMap {
            $0.term.map(HTMLEntities.decode)
        }
        objectURL = try? record.decodeURLIfPresent(forKey: .objectURL)
        metadataDate = try record.decodeISO8601IfPresent(forKey: .metadataDate)
    }

    /// Whether `met image` can fetch something: a public-domain primary image.
    public var hasPublicImage: Bool { isPublicDomain && primaryImage != nil }
}

extension KeyedDecodingContainer {
    /// A string field as text to show: entities decoded, whitespace trimmed, and
    /// null, missing or empty as nil. A field of another type is nil too.
    fileprivate func text(_ key: Key) -> String? {
        guard let raw = try? decodeIfPresent(String.self, forKey: key) else { return nil }
        let text = HTMLEntities.decode(raw).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }
}

/// The Met's search answer: how many objects match and their ids. No hits come as
/// `{"total":0,"objectIDs":null}`.
public struct MetSearchResult: Decodable, Sendable, Equatable {
    public let total: Int
    public let objectIDs: [Int]

    private enum Keys: String, CodingKey { case total, objectIDs }

    public init(total: Int, objectIDs: [Int]) {
        self.total = total
        self.objectIDs = objectIDs
    }

    public init(from decoder: any Decoder) throws {
        let record = try decoder.container(keyedBy: Keys.self)
        objectIDs = try record.decodeIfPresent([Int].self, forKey: .objectIDs) ?? []
        total = try record.decodeIfPresent(Int.self, forKey: .total) ?? objectIDs.count
    }
}

/// The Metropolitan Museum of Art's collection API.
public struct MetClient: Sendable {
    /// The API root, `https://collectionapi.metmuseum.org` unless configured.
    public let baseURL: URL
    let http: any HTTPFetching
    /// Object requests in flight at once.
    public static let maxConcurrentFetches = 4

    public init(baseURL: URL, http: any HTTPFetching) {
        self.baseURL = baseURL
        self.http = http
    }

    /// `{base}/public/collection/v1/search?q=…[&medium=…][&hasImages=true]`.
    public func searchURL(query: String, medium: String? = nil, hasImages: Bool = false) -> URL {
        var components = URLComponents(
            url: baseURL.appendingPathComponent("public/collection/v1/search"),
            resolvingAgainstBaseURL: false
        )!
        var items: [URLQueryItem] = []
        if let medium { items.append(URLQueryItem(name: "medium", value: medium)) }
        if hasImages { items.append(URLQueryItem(name: "hasImages", value: "true")) }
        items.append(URLQueryItem(name: "q", value: query))
        components.queryItems = items
        // URLComponents leaves '+' alone, which servers read as a space.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.url!
    }

    public func objectURL(id: Int) -> URL {
        baseURL.appendingPathComponent("public/collection/v1/objects/\(id)")
    }

    public func search(query: String, medium: String? = nil, hasImages: Bool = false) async throws(FeedError)
        -> MetSearchResult
    {
        let url = searchURL(query: query, medium: medium, hasImages: hasImages)
        return try await http.decode(MetSearchResult.self, from: url)
    }

    /// One object; an unknown id is ``FeedError/Code/notFound``.
    public func object(id: Int) async throws(FeedError) -> MetObject {
        do {
            return try await http.decode(MetObject.self, from: objectURL(id: id))
        } catch  where error.status == 404 {
            throw .notFound("no Met object \(id)")
        }
    }

    /// The objects of `ids`, in that order, fetched at most
    /// ``maxConcurrentFetches`` at a time; each one succeeds or fails on its own.
    public func objects(ids: [Int]) async -> [(id: Int, result: Result<MetObject, FeedError>)] {
        await withTaskGroup(of: (Int, Result<MetObject, FeedError>).self) { group in
            var results: [Int: Result<MetObject, FeedError>] = [:]
            var pending = ids.makeIterator()
            func startNext() -> Bool {
                guard let id = pending.next() else { return false }
                group.addTask {
                    // Under -O (Swift 6.3.1) a child that returns `.success(try await …)`
                    // from a typed `do throws` loses every success: bind the Result
                    // first (see DESIGN.md, "Facts"; EndToEndTests covers the binary).
                    let result: Result<MetObject, FeedError>
                    do throws(FeedError) {
                        result = .success(try await object(id: id))
                    } catch {
                        result = .failure(error)
                    }
                    return (id, result)
                }
                return true
            }
            for _ in 0..<Self.maxConcurrentFetches {
                guard startNext() else { break }
            }
            while let (id, result) = await group.next() {
                results[id] = result
                if !Task.isCancelled { _ = startNext() }
            }
            return ids.compactMap { id in results[id].map { (id, $0) } }
        }
    }
}
