import Foundation

// A date formatted for the locale, as any program that shows one to a person:
// Foundation's formatting brings its ICU data, which feedsh carries too.
print(Date().formatted(date: .abbreviated, time: .shortened))
