import Foundation
import GRDB
import GRDBSQLite

/// Where each of a record's columns is in the rows of one statement.
///
/// GRDB's `Codable` decoding looks every column up by its name in every row (the
/// name lowercased, then hashed): on `new`'s 10,000 episodes of 24 columns that
/// was a third of the command's time. The records of long lists read their
/// columns by position instead: ``PositionallyDecodedRecord/fetchAllByPosition(_:_:)``
/// finds the positions in the first row and reads every row with them.
///
/// `Key` is the record's `CodingKeys`, declared with `Int` raw values in the order
/// of its cases, so that a key's raw value is its place in `allCases`.
struct ColumnPositions<Key: CodingKey & CaseIterable & RawRepresentable<Int>>: Sendable {
    private var positions: [Int?]

    /// The positions of the keys' columns among `columnNames` (compared as SQLite
    /// and GRDB do, whatever the case; the leftmost of two alike).
    init(_ columnNames: some Sequence<String>) {
        let keys = Dictionary(Key.allCases.map { ($0.stringValue.lowercased(), $0.rawValue) }) { first, _ in first }
        positions = Array(repeating: nil, count: Key.allCases.count)
        for (index, name) in columnNames.enumerated() {
            if let key = keys[name.lowercased()], positions[key] == nil {
                positions[key] = index
            }
        }
    }

    /// The column of `key`; nil when the statement does not select it.
    subscript(key: Key) -> Int? { positions[key.rawValue] }
}

/// One row, its columns found through its statement's ``ColumnPositions``.
///
/// Decodes as GRDB's `Codable` decoding did: a column that is missing, or NULL
/// where a value is needed, throws GRDB's `RowDecodingError` naming the column and
/// the SQL; ``optional(_:)`` reads a missing column as nil (`decodeIfPresent`).
struct PositionedRow<Key: CodingKey & CaseIterable & RawRepresentable<Int>> {
    let row: Row
    let positions: ColumnPositions<Key>
    /// The statement whose current row `row` is, when it is one: a date's text is
    /// then read where SQLite holds it, not copied into a `String` first.
    let statement: SQLiteStatement?

    /// The row with positions found in it (one row, as `fetchOne` reads).
    init(_ row: Row) {
        self.init(row, positions: ColumnPositions(row.columnNames))
    }

    init(_ row: Row, positions: ColumnPositions<Key>, statement: SQLiteStatement? = nil) {
        self.row = row
        self.positions = positions
        self.statement = statement
    }

    /// The value of `key`'s column.
    func callAsFunction<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ key: Key) throws -> Value {
        guard let index = positions[key] else {
            return try row.decode(Value.self, forColumn: key.stringValue)
        }
        return try row.decode(Value.self, atIndex: index)
    }

    /// The value of `key`'s column; nil when it is NULL or not selected.
    func optional<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ key: Key) throws -> Value? {
        guard let index = positions[key] else { return nil }
        return try row.decode(Value?.self, atIndex: index)
    }

    /// The date in `key`'s column.
    func date(_ key: Key) throws -> Date {
        guard let index = positions[key] else { return try row.decode(Date.self, forColumn: key.stringValue) }
        if let date = storedDate(at: index) { return date }
        return try StoredDate.date(row[index]) ?? row.decode(Date.self, atIndex: index)
    }

    /// The date in `key`'s column; nil when it is NULL or not selected.
    func optionalDate(_ key: Key) throws -> Date? {
        guard let index = positions[key] else { return nil }
        if let date = storedDate(at: index) { return date }
        let value: DatabaseValue = row[index]
        return try StoredDate.date(value) ?? (value.isNull ? nil : row.decode(Date.self, atIndex: index))
    }

    /// The date in GRDB's form that column `index` holds as text, read in place
    /// from the statement; nil without one, or for anything else (the caller
    /// then reads the value as GRDB does). The column's type is asked first:
    /// SQLite's text of a number would convert the value where it is.
    private func storedDate(at index: Int) -> Date? {
        guard let statement else { return nil }
        let column = Int32(index)
        guard sqlite3_column_type(statement, column) == SQLITE_TEXT,
            let text = sqlite3_column_text(statement, column)
        else { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        return StoredDate.date(fromStored: UnsafeBufferPointer(start: text, count: count))
    }

    /// The value of `key`'s column stored as JSON, as GRDB stores a `Codable`
    /// property that is not a database value (`Record.databaseJSONDecoder(for:)`);
    /// nil when it is NULL or not selected.
    func optionalJSON<Value: Decodable, Record: FetchableRecord>(
        _ key: Key,
        as type: Value.Type,
        of record: Record.Type
    ) throws -> Value? {
        guard let index = positions[key], !row.hasNull(atIndex: index) else { return nil }
        return try row.withUnsafeData(atIndex: index) { data in
            try data.map { try Record.databaseJSONDecoder(for: key.stringValue).decode(Value.self, from: $0) }
        }
    }
}

/// A record whose rows are read by position (``ColumnPositions``) rather than
/// through `Codable`. Its `init(row:)` reads one row the same way, so that every
/// fetch decodes alike; but it finds the positions again in each row, copying
/// every value once more, so fetches of many rows go through
/// ``fetchAllByPosition(_:_:)`` or ``decodeAll(_:_:)``.
protocol PositionallyDecodedRecord: FetchableRecord {
    /// The record's `CodingKeys`: their string values name its columns.
    associatedtype ColumnKey: CodingKey & CaseIterable & RawRepresentable<Int>

    init(_ row: PositionedRow<ColumnKey>) throws
}

extension PositionallyDecodedRecord {
    /// Every record `request` selects, the positions of their columns found once.
    /// (A request of these records prefetches no association: none has any.)
    static func fetchAllByPosition(_ db: Database, _ request: some FetchRequest) throws -> [Self] {
        let prepared = try request.makePreparedRequest(db, forSingleResult: false)
        let rows = try Row.fetchCursor(prepared.statement, adapter: prepared.adapter)
        // Without an adapter, a row's columns are its statement's, in place.
        let statement = prepared.adapter == nil ? prepared.statement.sqliteStatement : nil
        return try decodeAll(rows, statement: statement) { record, _ in record }
    }

    /// Each row of one statement as a record and what else `transform` reads from
    /// the row; the positions of the record's columns found in the first row.
    /// `statement`, when given, is the one whose current row each row is.
    static func decodeAll<Rows: Cursor<Row>, Value>(
        _ rows: Rows,
        statement: SQLiteStatement? = nil,
        _ transform: (Self, Row) throws -> Value
    ) throws -> [Value] {
        var positions: ColumnPositions<ColumnKey>?
        var values: [Value] = []
        while let row = try rows.next() {
            let found = positions ?? ColumnPositions(row.columnNames)
            positions = found
            values.append(try transform(Self(PositionedRow(row, positions: found, statement: statement)), row))
        }
        return values
    }
}

/// Dates as GRDB stores them, read without `Calendar`.
///
/// GRDB writes a `Date` as "yyyy-MM-dd HH:mm:ss.SSS" in UTC and reads one back
/// through `Calendar.date(from:)`, which took longer than the rest of an
/// episode's row (`new`: 20,000 dates). The same text is read here with the
/// civil calendar's arithmetic; anything else (another form SQLite allows, a
/// number, a field out of range) is left to GRDB, so that it reads as it did.
enum StoredDate {
    /// The date `value` holds in GRDB's form; nil for any other value.
    static func date(_ value: DatabaseValue) -> Date? {
        guard case .string(var text) = value.storage else { return nil }
        return text.withUTF8 { date(fromStored: $0) }
    }

    /// The date of "yyyy-MM-dd HH:mm:ss.SSS"; nil for other text.
    static func date(fromStored text: UnsafeBufferPointer<UInt8>) -> Date? {
        guard text.count == 23, text[4] == UInt8(ascii: "-"), text[7] == UInt8(ascii: "-"),
            text[10] == UInt8(ascii: " "), text[13] == UInt8(ascii: ":"), text[16] == UInt8(ascii: ":"),
            text[19] == UInt8(ascii: ".")
        else { return nil }
        func number(_ start: Int, _ count: Int) -> Int? {
            var value = 0
            for offset in start..<start + count {
                let digit = Int(text[offset]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
            let millisecond = number(20, 3), (1...12).contains(month), (1...31).contains(day), hour < 24,
            minute < 60, second < 60
        else { return nil }
        let days = daysSince1970(year: year, month: month, day: day) - daysFrom1970To2001
        // Summed as `Calendar` sums them, so that the same bits come out: the time
        // of day with its fraction first, then the days since 2001. Near 2001 the
        // other order rounds differently (2000-12-30 05:42:52.333).
        let timeOfDay = Double(hour * 3_600 + minute * 60 + second) + Double(millisecond) / 1_000
        return Date(timeIntervalSinceReferenceDate: Double(days * 86_400) + timeOfDay)
    }

    /// Days from 1970-01-01 to 2001-01-01, the reference date.
    static let daysFrom1970To2001 = 11_323

    /// Days from 1970-01-01 to a day of the proleptic Gregorian calendar (Howard
    /// Hinnant's `days_from_civil`).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let year = month <= 2 ? year - 1 : year
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
