/** Realistic jobs and a profile shared by the local writer's tests (./local-writer.test.ts, ./local-writer-letters.test.ts). */
import type { WriterProfile, WritingJob } from "../../src/ai/local-writer";

export const JOBS: Record<string, WritingJob> = {
  react: {
    title: "React/TypeScript developer for an analytics dashboard",
    description:
      "We are looking for an experienced React developer to build an internal analytics dashboard for our SaaS product. " +
      "The data comes from our existing REST API (Node.js).\n\nWhat you'll do:\n- Build reusable chart and table components with TypeScript\n" +
      "- Integrate the REST API and handle loading and error states\n- Add filtering by date range and customer\n- Write unit tests for the main views\n\n" +
      "Designs are ready in Figma. Please include examples of dashboards you've built in your proposal.",
    skills: ["React", "TypeScript", "Node.js", "Chart.js", "REST API"],
    jobType: "HOURLY",
    budgetText: "40–60 USD/hour",
    clientCountry: "US",
  },
  shopify: {
    title: "Speed up our Shopify store checkout",
    description:
      "Our Shopify store takes over 6 seconds to load on mobile and checkout feels sluggish. We need someone to speed up the store and get our PageSpeed score above 80. " +
      "We use a customised Dawn theme with about 15 apps installed. You will audit the apps and remove the ones we don't need, optimize images and fix render-blocking scripts. " +
      "Must not break the existing tracking (GA4, Meta pixel).",
    skills: ["Shopify", "Liquid", "Page Speed Optimization", "JavaScript"],
    jobType: "FIXED",
    budgetText: "500 USD fixed",
    clientCountry: "GB",
  },
  scraping: {
    title: "Python scraper for real estate listings",
    description:
      "I need a Python script that scrapes property listings (price, address, size, agent) from three real estate websites every day and saves them to a Google Sheet. " +
      "The sites use pagination and one of them loads results with JavaScript. The script should handle errors and avoid duplicates. " +
      "Deliverables: the script, a README and a short video showing how to run it.",
    skills: ["Python", "Web Scraping", "Selenium", "Beautiful Soup", "Google Sheets"],
    jobType: "FIXED",
    budgetText: "300 USD fixed",
    clientCountry: "AU",
  },
  logo: {
    title: "Logo Redesign For A Family Bakery",
    description:
      "We want a modern version of our 1980s logo that still feels warm and handmade. The logo will be used on our shop sign, packaging and Instagram. " +
      "Deliverables:\n- SVG and PNG files (logo@2x.png for retina)\n- A one-colour version\n- A simple colour palette",
    skills: ["Logo Design", "Adobe Illustrator", "Brand Identity"],
    jobType: "FIXED",
    budgetText: "400 EUR fixed",
    clientCountry: "DE",
  },
  devops: {
    title: "Migrate Docker apps from Heroku to AWS",
    description:
      "We run four small Node.js services and a Postgres database on Heroku and want to move everything to AWS before our renewal in two months. " +
      "Scope: set up ECS or EKS with Terraform, migrate the database with minimal downtime, configure CI/CD with GitHub Actions, and set up monitoring and alerts. " +
      "We have no in-house DevOps person, so documentation matters.",
    skills: ["AWS", "Terraform", "Docker", "DevOps", "PostgreSQL", "GitHub Actions"],
    jobType: "HOURLY",
    budgetText: "50–80 USD/hour",
    clientCountry: "CA",
  },
};

export const PROFILE: WriterProfile = { name: "Ana Souza", title: "Senior Full-Stack Developer", skills: ["React", "TypeScript", "Python", "AWS"] };
