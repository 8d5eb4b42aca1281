import Testing

@testable import FeedKit

/// Show notes through the allow-list before the page shows them as markup.
@Suite struct ShowNotesTests {
    @Test func whatIsAllowedStaysWithoutAttributes() {
        #expect(
            ShowNotes.html(#"<p class="x" onclick="evil()">Gulls &amp; <em>ropes</em><br/>and <b>more</b></p>"#)
                == "<p>Gulls &amp; <em>ropes</em><br>and <b>more</b></p>"
        )
        #expect(
            ShowNotes.html(#"<a href="https://example.org/?a=1&amp;b=2" style="x">site</a>"#)
                == #"<a href="https://example.org/?a=1&amp;b=2" rel="noopener noreferrer nofollow" target="_blank">site</a>"#
        )
        #expect(ShowNotes.html("<ul><li>one<li>two</ul>") == "<ul><li>one<li>two</li></li></ul>")
    }

    @Test func hostileMarkupRunsNothing() {
        let cases: [(String, String)] = [
            ("<script>alert(1)</script>after", "after"),
            ("<SCRIPT src=//evil.example></SCRIPT>x", "x"),
            ("<img src=x onerror=alert(1)>text", "text"),
            ("<iframe src=https://evil.example>inner</iframe>ok", "ok"),
            ("<svg><script>alert(1)</script><a href=javascript:alert(1)>x</a></svg>ok", "ok"),
            ("<style>body{display:none}</style>shown", "shown"),
            (#"<a href="javascript:alert(1)">click</a>"#, "click"),
            (#"<a href=" jav&#x09;ascript:alert(1)">click</a>"#, "click"),
            (#"<a href="JaVaScRiPt:alert(1)">click</a>"#, "click"),
            (#"<a href="data:text/html,<script>alert(1)</script>">click</a>"#, "click"),
            (#"<a href="/api/episodes/1:1/played">click</a>"#, "click"),
            ("<p onmouseover='alert(1)'>hi</p>", "<p>hi</p>"),
            ("&lt;script&gt;alert(1)&lt;/script&gt;", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>"),
            ("<!-- <script>alert(1)</script> -->after", "after"),
            ("a < b and c > d <", "a &lt; b and c &gt; d &lt;"),
            (#"<p title="a>b">x</p>"#, "<p>x</p>"),
            ("<form action=/api><input name=q></form>text", "text"),
            ("<math><mi>x</mi></math>after", "after"),
        ]
        for (notes, expected) in cases {
            let shown = ShowNotes.html(notes)
            #expect(shown == expected, "\(notes)")
            for bad in ["<script", "onerror", "onclick", "javascript:", "<img", "<iframe", "<svg", "<style", "data:"] {
                #expect(!shown.lowercased().contains(bad), "\(notes) gave \(shown)")
            }
        }
    }

    @Test func plainNotesBecomeParagraphs() {
        #expect(
            ShowNotes.html("First line\nsecond\n\nNext & last") == "<p>First line<br>second</p><p>Next &amp; last</p>"
        )
        #expect(ShowNotes.html("\u{1B}[31mred") == "<p>red</p>")
    }

    @Test func onlyRichNotesAreKeptAsMarkup() {
        #expect(ShowNotes.markup("plain words") == nil)
        #expect(ShowNotes.markup("<p>Just a paragraph.</p><br>") == nil)
        #expect(
            ShowNotes.markup(#"<p>See <a href="https://example.org">this</a></p>"#)
                == #"<p>See <a href="https://example.org" rel="noopener noreferrer nofollow" target="_blank">this</a></p>"#
        )
    }

    /// The byte check that skips converting plain paragraphs gives what the
    /// conversion itself would: markup exactly when the converted notes are rich.
    @Test func skippingPlainParagraphsChangesNothing() {
        let notes = [
            "<p>Just words &amp; more.</p>", "<P>Upper</P><BR/>", "<EM>loud</EM>", "<Strong>x</Strong>",
            "<A HREF='https://example.org'>link</A>", "<a href='javascript:alert(1)'>no</a>", "<b2>not bold</b2>",
            "<li>one", "<ul><LI>two</LI></ul>", "a < b and c > d", "<!-- <em>hidden</em> -->", "&lt;em&gt;text",
            "<script><em>x</em></script>", "<ém>accent</ém>", "<İ>dotted</İ>", "<pre>code</pre>", "<blockquote>q",
            "<code>c</code>", "<i>it</i>", "<p>x</p><div><span>y</span></div>", "<p>line<br>line</p>",
        ]
        for text in notes {
            let converted = ShowNotes.html(text)
            let expected = ShowNotes.isRich(converted) ? converted : nil
            #expect(ShowNotes.markup(text) == expected, "\(text)")
        }
    }
}
