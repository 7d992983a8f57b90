// The Element Timing attribute (https://wicg.github.io/element-timing/), which React passes through but its types
// do not list: the browser records when an element marked with it is first painted.
import "react";

declare module "react" {
  interface ImgHTMLAttributes<T> {
    elementtiming?: string;
  }
}
